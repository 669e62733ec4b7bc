package dev.gantry.queue;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of the message table. Enqueues go to the newest open epoch. Once an epoch's successor has been open
 * for an epoch length, it is sealed: its unfinished messages are moved to the newest epoch, and its partition, with
 * all the dead row versions its updates left behind, is detached from the hot table into the archive. Archived
 * partitions are dropped whole after the retention period. Row-by-row deletes never happen, so cleanup costs no dead
 * tuples, and claims only ever scan the two or three newest epochs, even while an old snapshot stops vacuum. Live
 * epochs are vacuumed as they gather dead row versions, so that claims need not read past them ({@link #vacuumLive}).
 *
 * <p>Only one process maintains a database at a time (an advisory lock); the others skip their turn. No step locks
 * the hot table against queue statements: opening attaches a table made apart, sealing moves rows in short
 * transactions and detaches concurrently ({@link #seal}). Both wait for the statements already using the hot table,
 * so they skip their turn while a long transaction holds a lock there ({@link LockHolder}), and name it in the log.
 * Dropping an archived epoch locks the archive exclusively, and likewise skips its turn while a long transaction holds
 * the archive, since every duplicate check of a unique key would otherwise queue behind it.
 */
final class Epochs {
    private static final Logger log = LoggerFactory.getLogger(Epochs.class);
    private static final long MAINTENANCE_LOCK = 0x67616e7472790001L; // "gantry" + 1
    private static final String COLUMNS = "epoch, id, queue, state, priority, group_key, run_at, attempt, "
            + "max_attempts, unique_key, payload, lease_until, worker, last_error, enqueued_at, finished_at";

    /**
     * How long a partition change waits for its lock. While it waits, every queue statement that arrives queues
     * behind its request, so this is the longest stall maintenance can cause; under load the lock usually comes within
     * a few milliseconds (queue transactions are short), and a change that times out is tried again next turn.
     */
    private static final String LOCK_WAIT = "SET LOCAL lock_timeout = '50ms'";

    /** Unfinished messages a seal moves forward at most, unless the epoch is old (see {@link #worthSealing}). */
    static final int MAX_MOVED = 1_000;
    /** Epoch lengths after which an epoch is sealed whatever it still holds. */
    static final int MAX_AGE_EPOCHS = 10;

    /** Rows a seal moves forward per transaction, and how often it looks again for rows a claim held. */
    private static final int MOVE_BATCH = 500;
    private static final int MOVE_WAITS = 20;
    /** Longest a detach waits for the statements begun before it (they are short; a long one is skipped anyway). */
    private static final Duration DETACH_WAIT = Duration.ofSeconds(1);

    /** Longest a new epoch waits for the transactions begun before its partition was attached. */
    private static final Duration SWITCH_WAIT = Duration.ofSeconds(1);
    private static final Duration LOCKERS_POLL = Duration.ofMillis(2);
    /**
     * How full enqueues fill a partition's pages, in percent. A message is written three times (enqueue, claim,
     * completion) within moments, and PostgreSQL logs only the changed bytes of an update that stays on its page,
     * the whole row otherwise: leaving room for the two later versions cut the WAL per message by about 75 bytes
     * (from 980 to 905 in the benchmark). The pages hold the same three versions either way, so the table is no
     * larger.
     */
    static final int FILLFACTOR = 33;
    /** Dead row versions a live epoch gathers before it is vacuumed again. */
    static final long VACUUM_AFTER_DEAD = 1_000;

    private final Jdbi jdbi;
    private final QueueSettings settings;
    /** Per live epoch, what its last vacuum left behind. */
    private final Map<Integer, Vacuumed> lastVacuum = new ConcurrentHashMap<>();
    /** The long transactions last found in maintenance's way, to log each once. */
    private final AtomicReference<LockHolder> hotHolder = new AtomicReference<>();
    private final AtomicReference<LockHolder> archiveHolder = new AtomicReference<>();

    Epochs(Jdbi jdbi, QueueSettings settings) {
        this.jdbi = jdbi;
        this.settings = settings;
    }

    /** Opens the first epoch if there is none. */
    void ensureOpen() {
        jdbi.useHandle(h -> withLock(h, () -> {
            if (newest(h) == null) {
                open(h, 1, settings.clock().instant(), false);
            }
        }));
    }

    void maintain() {
        jdbi.useHandle(h -> withLock(h, () -> {
            Instant now = settings.clock().instant();
            // Opening and sealing wait for the transactions using the hot table, dropping for those using the
            // archive: behind a long one, skip the step and say who is in the way.
            if (unblocked(h, "gantry_queue.message", hotHolder, "opening and sealing epochs")) {
                Open newest = newest(h);
                if (newest == null || !newest.openedAt().plus(settings.epochLength()).isAfter(now)) {
                    open(h, newest == null ? 1 : newest.epoch() + 1, now, true);
                }
                for (Candidate c : sealable(h, now)) {
                    // A table has one pending detach at most: an unfinished seal holds back the later ones.
                    if (worthSealing(h, c, now) && !seal(h, c.epoch(), now)) {
                        break;
                    }
                }
            }
            vacuumLive(h);
            if (unblocked(h, "gantry_queue.message_archive", archiveHolder, "dropping archived epochs")) {
                for (int epoch : expired(h, now)) {
                    // The archive too can have one pending detach only: an unfinished drop holds back the later ones.
                    if (!drop(h, epoch)) {
                        break;
                    }
                }
            }
        }));
    }

    /** True when no long transaction holds {@code table}; logs when one starts and stops being in the way. */
    private static boolean unblocked(Handle h, String table, AtomicReference<LockHolder> last, String what) {
        Optional<LockHolder> holder = LockHolder.on(h, table);
        LockHolder before = last.getAndSet(holder.orElse(null));
        if (holder.isPresent() && (before == null || before.pid() != holder.get().pid())) {
            log.warn("queue maintenance: {} is paused: {} {}", what, table, holder.get().describe());
        } else if (holder.isEmpty() && before != null) {
            log.info("queue maintenance: {} resumed", what);
        }
        return holder.isEmpty();
    }

    List<Integer> live() {
        return jdbi.withHandle(h -> h.createQuery("SELECT epoch FROM gantry_queue.epoch WHERE sealed_at IS NULL "
                        + "ORDER BY epoch")
                .mapTo(Integer.class).list());
    }

    private record Open(int epoch, Instant openedAt) {
    }

    private static Open newest(Handle h) {
        return h.createQuery("SELECT epoch, opened_at FROM gantry_queue.epoch WHERE sealed_at IS NULL "
                        + "ORDER BY epoch DESC LIMIT 1")
                .map((rs, ctx) -> new Open(rs.getInt(1), rs.getObject(2, OffsetDateTime.class).toInstant()))
                .findOne().orElse(null);
    }

    /** @param bounded give up after a lock timeout (the newest epoch then takes enqueues a little longer) */
    private void open(Handle h, int epoch, Instant now, boolean bounded) {
        String table = "gantry_queue." + table(epoch);
        try {
            h.useTransaction(tx -> {
                if (bounded) {
                    // Bounds the rare wait behind another schema change of the hot table.
                    tx.execute(LOCK_WAIT);
                }
                if (detachPending(tx, "gantry_queue.message", epoch) == null) { // not attached yet
                    // Made apart, then attached: ATTACH PARTITION locks the hot table only against other schema
                    // changes, while CREATE TABLE ... PARTITION OF locks it exclusively and so stalled every queue
                    // statement at each new epoch. The CHECK spares the attach its scan (and the seal its proof).
                    tx.execute("CREATE TABLE " + table + " (LIKE gantry_queue.message) WITH (fillfactor = " + FILLFACTOR
                            + ")");
                    tx.execute("ALTER TABLE " + table + " ADD CONSTRAINT " + table(epoch) + "_epoch CHECK (epoch = "
                            + epoch + ")");
                    tx.execute("ALTER TABLE gantry_queue.message ATTACH PARTITION " + table + " FOR VALUES IN ("
                            + epoch + ")");
                }
            });
        } catch (RuntimeException e) {
            if (!"55P03".equals(SqlFailures.sqlState(e))) { // lock_not_available: busy, try next turn
                throw e;
            }
            log.info("the queue's hot table is busy; opening epoch {} next turn", epoch);
            return;
        }
        // The attach did not wait for the transactions already using the hot table, and they route rows with the
        // partitions they saw when they locked it: one whose statement then saw the new epoch as current would find
        // no partition for its row. So the epoch becomes current only once they have ended (or next turn).
        if (!lockersEnded(h, SWITCH_WAIT)) {
            log.info("transactions begun before epoch {} was attached are still open; it becomes current next turn",
                    epoch);
            return;
        }
        h.createUpdate("INSERT INTO gantry_queue.epoch (epoch, opened_at) VALUES (:epoch, :now) "
                + "ON CONFLICT (epoch) DO NOTHING").bind("epoch", epoch).bind("now", Queues.ts(now)).execute();
        log.debug("opened queue epoch {}", epoch);
    }

    /** Waits up to {@code within} for the transactions that hold a lock on the hot table now to end. */
    private static boolean lockersEnded(Handle h, Duration within) {
        List<String> lockers = h.createQuery("""
                        SELECT DISTINCT virtualtransaction FROM pg_locks
                        WHERE locktype = 'relation' AND relation = CAST('gantry_queue.message' AS regclass)
                          AND pid <> pg_backend_pid()
                        """).mapTo(String.class).list();
        long deadline = System.nanoTime() + within.toNanos();
        while (!lockers.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            if (!pause(LOCKERS_POLL)) {
                return false;
            }
            lockers = h.createQuery("SELECT DISTINCT virtualtransaction FROM pg_locks "
                            + "WHERE virtualtransaction = ANY(:ids)")
                    .bindArray("ids", String.class, lockers.toArray()).mapTo(String.class).list();
        }
        return true;
    }

    /** Sleeps; false when interrupted (the interrupt stays set). */
    private static boolean pause(Duration d) {
        try {
            Thread.sleep(d);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Open epochs, except the newest, whose successor has been open for at least an epoch length. */
    private record Candidate(int epoch, Instant openedAt) {
    }

    private List<Candidate> sealable(Handle h, Instant now) {
        return h.createQuery("""
                        SELECT e.epoch, e.opened_at FROM gantry_queue.epoch e
                        JOIN gantry_queue.epoch next ON next.epoch = e.epoch + 1
                        WHERE e.sealed_at IS NULL AND next.opened_at <= :cutoff
                        ORDER BY e.epoch
                        """)
                .bind("cutoff", Queues.ts(now.minus(settings.epochLength())))
                .map((rs, ctx) -> new Candidate(rs.getInt(1), rs.getObject(2, OffsetDateTime.class).toInstant()))
                .list();
    }

    /**
     * An epoch that still holds a large backlog stays attached a while longer: sealing it at every turn would move
     * the same unfinished messages forward again and again. It is sealed once at most {@value #MAX_MOVED} unfinished
     * messages remain, or when it is {@value #MAX_AGE_EPOCHS} epoch lengths old, whichever comes first, so the hot
     * table's epochs stay few either way.
     */
    private boolean worthSealing(Handle h, Candidate c, Instant now) {
        if (!c.openedAt().plus(settings.epochLength().multipliedBy(MAX_AGE_EPOCHS)).isAfter(now)) {
            return true;
        }
        return unfinished(h, "gantry_queue." + table(c.epoch()), MAX_MOVED + 1) <= MAX_MOVED;
    }

    /**
     * The CTEs {@code ready} and {@code running}: the ids of at most {@code :batch} ready and {@code :batch} running
     * messages of a partition (a running message, and only a running one, has a {@code lease_until}), with
     * {@code lock} after each. Each is read through its partial index, in that index's order: a filter on the state
     * read every message of the epoch, nearly all of them finished, three times per seal. The partition is rarely
     * analysed in its short life, and without statistics the planner guesses that most rows are running; the order
     * and the limit make the index the cheaper path whatever it guesses.
     */
    static String unfinishedIds(String table, String lock) {
        return "ready AS (SELECT id FROM " + table + " WHERE state = 0 ORDER BY queue, priority, group_key, run_at, id "
                + "LIMIT :batch" + lock + "), running AS (SELECT id FROM " + table + " WHERE lease_until IS NOT NULL "
                + "ORDER BY lease_until LIMIT :batch" + lock + ")";
    }

    /** Counts a partition's unfinished messages, up to {@code :batch} ready and {@code :batch} running ones. */
    static String countUnfinished(String table) {
        return "WITH " + unfinishedIds(table, "")
                + " SELECT (SELECT count(*) FROM ready) + (SELECT count(*) FROM running)";
    }

    private static long unfinished(Handle h, String table, int atMost) {
        return h.createQuery(countUnfinished(table)).bind("batch", atMost).mapTo(Long.class).one();
    }

    /**
     * Vacuums each live epoch that has gathered {@value #VACUUM_AFTER_DEAD} dead row versions since its last vacuum.
     * Every claim and completion leaves one behind, and the ready index keeps an entry for each claimed message at
     * its front, oldest first, where every claim starts reading: after a burst of a hundred thousand messages, each
     * claim would walk past all of them until their epoch is sealed, and the queue would fall behind just when it
     * has work again. Vacuum removes those entries (all but those an open snapshot may still see; the epochs bound
     * the rest). It takes a lock that no queue statement waits for, skips an epoch whose lock another vacuum holds,
     * and does not truncate the table, which would lock it exclusively.
     *
     * <p>While the session whose snapshot kept the last vacuum's dead rows is still the oldest, the rows that died
     * since are younger still, and another vacuum would read the whole epoch to remove none of them: it waits until
     * that session ends (the epochs bound what it keeps meanwhile).
     */
    private void vacuumLive(Handle h) {
        List<Dead> live = h.createQuery("""
                        SELECT e.epoch, coalesce(s.n_dead_tup, 0) FROM gantry_queue.epoch e
                        LEFT JOIN pg_stat_user_tables s
                               ON s.schemaname = 'gantry_queue' AND s.relname = 'message_' || e.epoch
                        WHERE e.sealed_at IS NULL
                        """)
                .map((rs, ctx) -> new Dead(rs.getInt(1), rs.getLong(2))).list();
        lastVacuum.keySet().retainAll(live.stream().map(Dead::epoch).toList());
        List<Dead> due = live.stream()
                .filter(d -> d.tuples() - lastVacuum.getOrDefault(d.epoch(), Vacuumed.NEVER).deadLeft()
                        >= VACUUM_AFTER_DEAD)
                .toList();
        if (due.isEmpty()) {
            return;
        }
        Optional<String> oldest = oldestTransaction(h);
        for (Dead d : due) {
            Vacuumed last = lastVacuum.getOrDefault(d.epoch(), Vacuumed.NEVER);
            if (oldest.isPresent() && oldest.get().equals(last.oldest())) {
                continue; // the same session still holds back what died since the last vacuum
            }
            h.execute("VACUUM (PARALLEL 0, INDEX_CLEANUP ON, PROCESS_TOAST FALSE, TRUNCATE FALSE, SKIP_LOCKED) "
                    + "gantry_queue." + table(d.epoch()));
            long deadLeft = h.createQuery("SELECT n_dead_tup FROM pg_stat_user_tables "
                            + "WHERE schemaname = 'gantry_queue' AND relname = :name")
                    .bind("name", table(d.epoch())).mapTo(Long.class).findOne().orElse(0L);
            lastVacuum.put(d.epoch(), new Vacuumed(deadLeft, oldest.orElse(null)));
        }
    }

    /**
     * What a live epoch's last vacuum left behind.
     *
     * @param deadLeft the dead row versions it could not remove (an open snapshot could still see them)
     * @param oldest   the oldest transaction another session held open then; null when none did
     */
    private record Vacuumed(long deadLeft, String oldest) {
        static final Vacuumed NEVER = new Vacuumed(0, null);
    }

    /**
     * The oldest transaction id that another session of this database holds back vacuum with (its snapshot's xmin,
     * or its own id), or that a prepared transaction or a replication slot holds; empty when none does. Sessions
     * running a VACUUM are left out: vacuum ignores them, so a long one elsewhere must not hold this one back.
     */
    private static Optional<String> oldestTransaction(Handle h) {
        return h.createQuery("""
                        WITH other AS (
                            SELECT backend_xmin, backend_xid FROM pg_stat_activity
                            WHERE datname = current_database() AND pid <> pg_backend_pid()
                              AND NOT coalesce(query LIKE 'autovacuum: VACUUM%'
                                               OR (state = 'active' AND query ILIKE 'vacuum%'), false)
                        )
                        SELECT CAST(x AS text) FROM (
                            SELECT backend_xmin AS x FROM other
                            UNION ALL
                            SELECT backend_xid FROM other
                            UNION ALL
                            SELECT transaction FROM pg_prepared_xacts WHERE database = current_database()
                            UNION ALL
                            SELECT xmin FROM pg_replication_slots
                        ) held
                        WHERE x IS NOT NULL
                        ORDER BY age(x) DESC
                        LIMIT 1
                        """)
                .mapTo(String.class).findOne();
    }

    private record Dead(int epoch, long tuples) {
    }

    private List<Integer> expired(Handle h, Instant now) {
        return h.createQuery("SELECT epoch FROM gantry_queue.epoch WHERE sealed_at <= :cutoff ORDER BY epoch")
                .bind("cutoff", Queues.ts(now.minus(settings.retention()))).mapTo(Integer.class).list();
    }

    /**
     * Seals an epoch without ever locking the hot table against queue statements, in steps that a later turn resumes
     * wherever an earlier one stopped (a lock timeout, a crash):
     * <ol>
     * <li>its unfinished messages move to the newest epoch ({@link #moveUnfinished});
     * <li>{@code DETACH PARTITION CONCURRENTLY} takes it out of the hot table: new statements stop seeing it at once,
     * and the detach completes once the statements that began before have ended;
     * <li>what became unfinished there meanwhile (a replay, say) moves forward too, and it joins the archive.
     * </ol>
     *
     * @return whether it is sealed now
     */
    private boolean seal(Handle h, int epoch, Instant now) {
        String table = "gantry_queue." + table(epoch);
        try {
            Boolean pending = detachPending(h, "gantry_queue.message", epoch);
            if (pending == Boolean.FALSE) {
                proveEpoch(h, epoch);
                if (!moveUnfinished(h, epoch)) {
                    log.info("messages of queue epoch {} are busy; sealing it next turn", epoch);
                    return false;
                }
                detach(h, "ALTER TABLE gantry_queue.message DETACH PARTITION " + table + " CONCURRENTLY");
            } else if (pending == Boolean.TRUE) {
                detach(h, "ALTER TABLE gantry_queue.message DETACH PARTITION " + table + " FINALIZE");
            }
            h.useTransaction(tx -> {
                tx.execute(LOCK_WAIT);
                // Only this transaction moves unfinished rows of the detached table now (a replay there takes a
                // dead one): a plain move is safe. The attach below waits for a replay under way, or times out.
                int stragglers = 0;
                int moved;
                do {
                    moved = tx.createUpdate("WITH " + unfinishedIds(table, "") + ", moved AS (DELETE FROM " + table
                                    + " WHERE id IN (SELECT id FROM ready UNION ALL SELECT id FROM running) RETURNING "
                                    + COLUMNS + ") INSERT INTO gantry_queue.message (" + COLUMNS + ") SELECT "
                                    + MessageSql.CURRENT_EPOCH + ", " + COLUMNS.substring("epoch, ".length())
                                    + " FROM moved")
                            .bind("batch", MOVE_BATCH).execute();
                    stragglers += moved;
                } while (moved > 0);
                tx.execute("ALTER TABLE gantry_queue.message_archive ATTACH PARTITION " + table
                        + " FOR VALUES IN (" + epoch + ")");
                tx.createUpdate("UPDATE gantry_queue.epoch SET sealed_at = :now WHERE epoch = :epoch")
                        .bind("now", Queues.ts(now)).bind("epoch", epoch).execute();
                log.debug("sealed queue epoch {}; {} messages became unfinished while it was detached", epoch,
                        stragglers);
            });
            return true;
        } catch (RuntimeException e) {
            if (!"55P03".equals(SqlFailures.sqlState(e))) { // lock_not_available: busy, try next turn
                throw e;
            }
            log.info("queue epoch {} is busy; sealing it next turn", epoch);
            return false;
        }
    }

    /** Whether the epoch's detach from {@code parent} is under way; null when it is not attached there. */
    private static Boolean detachPending(Handle h, String parent, int epoch) {
        return h.createQuery("""
                        SELECT i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                        WHERE i.inhparent = CAST(:parent AS regclass) AND c.relname = :name
                        """)
                .bind("parent", parent).bind("name", table(epoch)).mapTo(Boolean.class).findOne().orElse(null);
    }

    /**
     * Moves the epoch's ready and running messages to the newest epoch, a batch at a time, in short transactions.
     * Each locks the rows it moves with SKIP LOCKED, so it never waits for a claim or a completion (nor deadlocks with
     * one); a statement that then reaches a moved row fails with a serialisation error and is tried again at once
     * ({@link Queues}), and finds the row in its new epoch, its lease and attempt unchanged. Rows skipped because a
     * claim held them are running by the next batch, and move then.
     *
     * @return false when some rows stayed locked throughout (the seal waits for the next turn)
     */
    private static boolean moveUnfinished(Handle h, int epoch) {
        String table = "gantry_queue." + table(epoch);
        int waits = 0;
        while (true) {
            int moved = h.createUpdate("WITH " + unfinishedIds(table, " FOR UPDATE SKIP LOCKED")
                            + " UPDATE gantry_queue.message SET epoch = " + MessageSql.CURRENT_EPOCH
                            + " WHERE epoch = :epoch AND id IN (SELECT id FROM ready UNION ALL SELECT id FROM running)")
                    .bind("epoch", epoch).bind("batch", MOVE_BATCH).execute();
            if (moved > 0) {
                continue; // nothing enqueues into an old epoch, so this ends
            }
            if (unfinished(h, table, 1) == 0) {
                return true;
            }
            if (++waits == MOVE_WAITS || !pause(LOCKERS_POLL)) {
                return false;
            }
        }
    }

    /**
     * Runs a concurrent detach (it cannot run in a transaction). Waiting for it blocks no queue statement, only other
     * changes to the parent's partitions, so it may wait longer than {@link #LOCK_WAIT}.
     */
    private static void detach(Handle h, String sql) {
        h.execute("SET lock_timeout = '" + DETACH_WAIT.toMillis() + "ms'");
        try {
            h.execute(sql);
        } finally {
            h.execute("RESET lock_timeout"); // the connection goes back to a pool
        }
    }

    /**
     * Gives the partition a validated {@code CHECK (epoch = N)}, so that attaching it to the archive need not scan it.
     * Validating scans without blocking writes; adding the constraint unvalidated takes the partition's lock only for
     * a moment. (Epochs opened since the CHECK came in have it from the start.)
     */
    private static void proveEpoch(Handle h, int epoch) {
        String constraint = table(epoch) + "_epoch";
        boolean present = h.createQuery("SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = :name "
                        + "AND connamespace = 'gantry_queue'::regnamespace)")
                .bind("name", constraint).mapTo(Boolean.class).one();
        h.useTransaction(tx -> {
            tx.execute(LOCK_WAIT);
            if (!present) {
                tx.execute("ALTER TABLE gantry_queue." + table(epoch) + " ADD CONSTRAINT " + constraint
                        + " CHECK (epoch = " + epoch + ") NOT VALID");
            }
        });
        h.useTransaction(tx -> {
            tx.execute(LOCK_WAIT);
            tx.execute("ALTER TABLE gantry_queue." + table(epoch) + " VALIDATE CONSTRAINT " + constraint);
        });
    }

    /**
     * Drops an archived epoch. Dropping a partition would lock the whole archive, which unique-key checks and state
     * lookups read: the epoch is first detached concurrently, which waits only for the statements already using it
     * (blocking none), and a detach that timed out is finished next turn.
     *
     * @return whether it is dropped now
     */
    private boolean drop(Handle h, int epoch) {
        String table = "gantry_queue." + table(epoch);
        try {
            Boolean pending = detachPending(h, "gantry_queue.message_archive", epoch);
            if (pending != null) {
                detach(h, "ALTER TABLE gantry_queue.message_archive DETACH PARTITION " + table
                        + (pending ? " FINALIZE" : " CONCURRENTLY"));
            }
        } catch (RuntimeException e) {
            if (!"55P03".equals(SqlFailures.sqlState(e))) { // lock_not_available: busy, try next turn
                throw e;
            }
            log.info("archived queue epoch {} is busy; dropping it next turn", epoch);
            return false;
        }
        h.useTransaction(tx -> {
            tx.execute(LOCK_WAIT);
            tx.execute("DROP TABLE IF EXISTS " + table);
            tx.createUpdate("DELETE FROM gantry_queue.epoch WHERE epoch = :epoch").bind("epoch", epoch).execute();
        });
        log.debug("dropped archived queue epoch {}", epoch);
        return true;
    }

    /** Runs {@code body} if this session wins the maintenance lock; otherwise another process is maintaining. */
    private static void withLock(Handle h, Runnable body) {
        boolean locked = h.createQuery("SELECT pg_try_advisory_lock(:key)").bind("key", MAINTENANCE_LOCK)
                .mapTo(Boolean.class).one();
        if (!locked) {
            return;
        }
        try {
            body.run();
        } finally {
            h.createQuery("SELECT pg_advisory_unlock(:key)").bind("key", MAINTENANCE_LOCK).mapTo(Boolean.class).one();
        }
    }

    private static String table(int epoch) {
        return "message_" + epoch;
    }
}
