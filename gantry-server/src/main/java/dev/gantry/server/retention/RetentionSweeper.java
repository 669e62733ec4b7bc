package dev.gantry.server.retention;

import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.BlobStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes caches and artifacts past their {@link RetentionSettings}, a batch at a time, every {@link #EVERY}. For
 * each, the file goes first and its index row after: a crash between leaves a row whose file is gone, which the next
 * sweep deletes (it is still past retention), never a file nobody can find or a fresh row over a deleted file. Until
 * its row goes, a cache key still answers 409 to a new save, so a key is never indexed over a file about to be
 * deleted. Several servers on one database may sweep at once: a row deletes once, a file once.
 *
 * <p>{@link #start()} once, {@link #close()} once; a failed sweep is logged and the next one tries again.
 */
public final class RetentionSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);
    /** How often old caches and artifacts are looked for; the first look is a minute after the start. */
    static final Duration EVERY = Duration.ofHours(1);
    static final int BATCH = 500;

    /** What one sweep deleted. */
    public record Swept(int caches, long cacheBytes, int artifacts, long artifactBytes) {
    }

    private final Jdbi jdbi;
    private final BlobStore blobs;
    private final RetentionSettings settings;
    private final InstantSource clock;
    private volatile boolean closing;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("retention-sweeper").daemon().factory());

    public RetentionSweeper(Jdbi jdbi, BlobStore blobs, RetentionSettings settings, InstantSource clock) {
        this.jdbi = jdbi;
        this.blobs = blobs;
        this.settings = settings;
        this.clock = clock;
    }

    public RetentionSweeper start() {
        timer.scheduleWithFixedDelay(this::sweepLogged, 60_000, EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void sweepLogged() {
        try {
            Swept swept = sweep();
            if (swept.caches() > 0 || swept.artifacts() > 0) {
                LOG.info("Retention: deleted {} caches ({} bytes) saved over {} days ago and {} artifacts ({} bytes) "
                                + "over {} days ago", swept.caches(), swept.cacheBytes(), settings.caches().toDays(),
                        swept.artifacts(), swept.artifactBytes(), settings.artifacts().toDays());
            }
        } catch (RuntimeException e) {
            LOG.warn("Deleting old caches and artifacts failed; trying again in {} minutes", EVERY.toMinutes(), e);
        }
    }

    /** Deletes everything past retention now, in batches of {@link #BATCH}. */
    public Swept sweep() {
        OffsetDateTime now = clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
        OffsetDateTime cacheCutoff = now.minus(settings.caches());
        OffsetDateTime artifactCutoff = now.minus(settings.artifacts());
        int caches = 0;
        long cacheBytes = 0;
        List<RetentionDao.ExpiredCache> expiredCaches;
        do {
            expiredCaches = jdbi.withExtension(RetentionDao.class, d -> d.expiredCaches(cacheCutoff, BATCH));
            for (RetentionDao.ExpiredCache c : expiredCaches) {
                delete(BlobLayout.cache(c.projectId(), c.key()));
                if (jdbi.withExtension(RetentionDao.class, d -> d.deleteCache(c.projectId(), c.key(), cacheCutoff)) > 0) {
                    caches++;
                    cacheBytes += c.size();
                }
            }
        } while (expiredCaches.size() == BATCH && !closing);
        int artifacts = 0;
        long artifactBytes = 0;
        List<RetentionDao.ExpiredArtifact> expiredArtifacts;
        do {
            expiredArtifacts = jdbi.withExtension(RetentionDao.class, d -> d.expiredArtifacts(artifactCutoff, BATCH));
            for (RetentionDao.ExpiredArtifact a : expiredArtifacts) {
                // Paths were checked on upload; one that no longer parses has no file this store could reach.
                BlobName.parse(a.path()).ifPresent(path -> delete(BlobLayout.artifact(a.jobId(), a.nodeIndex(), path)));
                if (jdbi.withExtension(RetentionDao.class, d -> d.deleteArtifact(a.jobId(), a.nodeIndex(), a.path(),
                        artifactCutoff)) > 0) {
                    artifacts++;
                    artifactBytes += a.size();
                }
            }
        } while (expiredArtifacts.size() == BATCH && !closing);
        return new Swept(caches, cacheBytes, artifacts, artifactBytes);
    }

    private void delete(BlobName name) {
        try {
            blobs.delete(name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + name, e);
        }
    }

    /** Stops sweeping; a sweep under way stops after its current batch (the next sweep takes the rest). */
    @Override
    public void close() {
        closing = true;
        timer.shutdown();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
