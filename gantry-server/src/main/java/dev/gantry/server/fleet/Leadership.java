package dev.gantry.server.fleet;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.mapper.reflect.ConstructorMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which server of a database does a job only one may do at a time (the autoscaler): the holder of a row in
 * {@code gantry.leadership}. The holder renews the row on each {@link #look}; another server takes the row over only
 * after it has watched the row stand still for {@code takeoverAfter} of its own looks that reached the database. A
 * look that fails starts the watch again, so a database outage, which silences every server alike, never moves
 * leadership, while a holder killed or paused loses it after that time. A holder learns at its next look that the row
 * was taken over (it had been paused, say) and must then stop. A holder that stops cleanly {@linkplain #resign
 * resigns}, so that another takes over at its next look.
 *
 * <p>Used by the autoscaler (role {@code autoscaler}) and the status page's incident writer (role
 * {@code status-page}); each role is its own row and its own leadership. Not thread-safe: one thread looks.
 */
public final class Leadership {
    private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

    /** The row as one look saw it: who holds it, since which change of holder, and how often it was renewed. */
    public record Holder(String holder, long term, long beats, Instant renewedAt) {
    }

    private final Jdbi jdbi;
    private final String role;
    private final String self;
    private final Duration takeoverAfter;
    private final InstantSource clock;
    private Holder watched;
    private Instant watchedSince;
    private volatile Holder lastSeen;

    /**
     * @param role          what is led, the row's key
     * @param self          this server's instance id
     * @param takeoverAfter how long the row must be seen standing still before this server takes it over
     */
    public Leadership(Jdbi jdbi, String role, String self, Duration takeoverAfter, InstantSource clock) {
        this.jdbi = jdbi;
        this.role = Objects.requireNonNull(role, "role");
        this.self = Objects.requireNonNull(self, "self");
        this.takeoverAfter = takeoverAfter;
        this.clock = clock;
    }

    /**
     * One look: renews the row if this server holds it, takes it if nobody does or its holder has been silent long
     * enough (unless {@code mayTakeOver} is false), else watches it. Returns whether this server leads now.
     *
     * @throws org.jdbi.v3.core.JdbiException if the database cannot be reached; the watch then starts again
     */
    public boolean look(boolean mayTakeOver) {
        try {
            return jdbi.inTransaction(h -> look(h, mayTakeOver));
        } catch (RuntimeException e) {
            watched = null;
            throw e;
        }
    }

    private boolean look(Handle h, boolean mayTakeOver) {
        Optional<Holder> row = h.createQuery("""
                        SELECT holder, term, beats, renewed_at FROM gantry.leadership WHERE role = :role FOR UPDATE
                        """).bind("role", role).map(ConstructorMapper.of(Holder.class)).findOne();
        if (row.isEmpty()) {
            if (!mayTakeOver) {
                return false;
            }
            // Two servers may insert at once: one row wins, and the other server watches it from its next look.
            int inserted = h.createUpdate("""
                            INSERT INTO gantry.leadership (role, holder, term, beats, renewed_at)
                            VALUES (:role, :self, 1, 0, now()) ON CONFLICT (role) DO NOTHING
                            """).bind("role", role).bind("self", self).execute();
            if (inserted == 1) {
                LOG.info("This server now leads the {} (nobody did)", role);
            }
            return inserted == 1;
        }
        Holder seen = row.get();
        if (seen.holder().equals(self)) {
            h.createUpdate("UPDATE gantry.leadership SET beats = beats + 1, renewed_at = now() WHERE role = :role")
                    .bind("role", role).execute();
            lastSeen = seen;
            return true;
        }
        lastSeen = seen;
        Instant now = clock.instant();
        if (watched == null || watched.term() != seen.term() || watched.beats() != seen.beats()) {
            watched = seen;
            watchedSince = now;
            return false;
        }
        Duration silent = Duration.between(watchedSince, now);
        if (!mayTakeOver || silent.compareTo(takeoverAfter) < 0) {
            return false;
        }
        h.createUpdate("""
                        UPDATE gantry.leadership SET holder = :self, term = term + 1, beats = 0, renewed_at = now()
                        WHERE role = :role
                        """).bind("role", role).bind("self", self).execute();
        LOG.warn("This server now leads the {}: its holder {} did not renew it for {} s", role, seen.holder(),
                silent.toSeconds());
        watched = null;
        return true;
    }

    /** Gives the row up if this server holds it, so that another server leads from its next look. */
    public void resign() {
        int deleted = jdbi.withHandle(h -> h.createUpdate(
                        "DELETE FROM gantry.leadership WHERE role = :role AND holder = :self")
                .bind("role", role).bind("self", self).execute());
        if (deleted == 1) {
            LOG.info("This server no longer leads the {} (stopping)", role);
        }
    }

    /** The holder the last look saw (empty before one, or if it saw no row); this server when it led. */
    public Optional<Holder> lastSeen() {
        return Optional.ofNullable(lastSeen);
    }

    /** This server's instance id, as the row names its holder. */
    public String self() {
        return self;
    }
}
