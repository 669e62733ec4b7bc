package dev.gantry.server.retention;

import static dev.gantry.server.DurationSetting.format;

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
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes caches, workspace layers and artifacts past their {@link RetentionSettings}, a batch at a time, every
 * {@link #EVERY}. For each, the file goes first and its index row after: a crash between leaves a row whose file is
 * gone, which the next sweep finds again (it is still past retention), never a file nobody can find or a fresh row
 * over a deleted file. Until its row goes, a cache key still answers 409 to a new save, so a key is never indexed over
 * a file about to be deleted. A layer's row is marked expired rather than deleted, so that attaching the workspace it
 * belonged to fails with that reason instead of extracting what is left. Several servers on one database may sweep
 * at once: a row goes once, a file once.
 *
 * <p>{@link #start()} once, {@link #close()} once; a failed sweep is logged and the next one tries again.
 */
public final class RetentionSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);
    /** How often old files are looked for; the first look is a minute after the start. */
    static final Duration EVERY = Duration.ofHours(1);
    static final int BATCH = 500;

    /** What one sweep deleted. */
    public record Swept(int caches, long cacheBytes, int layers, long layerBytes, int artifacts, long artifactBytes) {
    }

    /** What one sweep of the notification log deleted; attempts go with their deliveries. */
    public record NotificationsSwept(int deliveries, int events) {
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
        LOG.info("Retention: caches {}, workspace layers {}, artifacts {}, notification log {} past final; swept "
                        + "every {} minutes", format(settings.caches()), format(settings.workspaces()),
                format(settings.artifacts()), format(settings.notifications()), EVERY.toMinutes());
        timer.scheduleWithFixedDelay(this::sweepLogged, 60_000, EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void sweepLogged() {
        try {
            Swept swept = sweep();
            if (swept.caches() > 0 || swept.layers() > 0 || swept.artifacts() > 0) {
                LOG.info("Retention: deleted {} caches ({} bytes) older than {}, {} workspace layers ({} bytes) older "
                                + "than {} and {} artifacts ({} bytes) older than {}", swept.caches(),
                        swept.cacheBytes(), format(settings.caches()), swept.layers(), swept.layerBytes(),
                        format(settings.workspaces()), swept.artifacts(), swept.artifactBytes(),
                        format(settings.artifacts()));
            }
            NotificationsSwept log = sweepNotifications();
            if (log.deliveries() > 0 || log.events() > 0) {
                LOG.info("Retention: deleted {} notification deliveries final for over {} and {} events left without "
                        + "any", log.deliveries(), format(settings.notifications()), log.events());
            }
        } catch (RuntimeException e) {
            LOG.warn("Deleting old caches, workspace layers and artifacts failed; trying again in {} minutes",
                    EVERY.toMinutes(), e);
        }
    }

    /** Deletes everything past retention now, in batches of {@link #BATCH}. */
    public Swept sweep() {
        OffsetDateTime now = clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
        OffsetDateTime cacheCutoff = now.minus(settings.caches());
        OffsetDateTime layerCutoff = now.minus(settings.workspaces());
        OffsetDateTime artifactCutoff = now.minus(settings.artifacts());
        Tally caches = inBatches(() -> dao(d -> d.expiredCaches(cacheCutoff, BATCH)), c -> {
            delete(BlobLayout.cache(c.projectId(), c.key()));
            return dao(d -> d.deleteCache(c.projectId(), c.key(), cacheCutoff)) > 0 ? c.size() : -1;
        });
        Tally layers = inBatches(() -> dao(d -> d.expiredLayers(layerCutoff, BATCH)), l -> {
            delete(BlobLayout.workspaceLayer(l.workflowId(), l.id()));
            return dao(d -> d.markLayerExpired(l.id(), now)) > 0 ? l.size() : -1;
        });
        Tally artifacts = inBatches(() -> dao(d -> d.expiredArtifacts(artifactCutoff, BATCH)), a -> {
            // Paths were checked on upload; one that no longer parses has no file this store could reach.
            BlobName.parse(a.path()).ifPresent(path -> delete(BlobLayout.artifact(a.jobId(), a.nodeIndex(), path)));
            return dao(d -> d.deleteArtifact(a.jobId(), a.nodeIndex(), a.path(), artifactCutoff)) > 0 ? a.size() : -1;
        });
        return new Swept(caches.count(), caches.bytes(), layers.count(), layers.bytes(), artifacts.count(),
                artifacts.bytes());
    }

    /**
     * Deletes deliveries that have been delivered or dead for longer than the notification retention (their attempts
     * with them), then the events none is left for, in batches of {@link #BATCH}. Pending deliveries stay, whatever
     * their age. Only rows go: a statement per batch, so several sweepers at once delete each row once.
     */
    public NotificationsSwept sweepNotifications() {
        OffsetDateTime cutoff = clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC)
                .minus(settings.notifications());
        int deliveries = inStatements(() -> dao(d -> d.deleteFinishedDeliveries(cutoff, BATCH)));
        int events = inStatements(() -> dao(d -> d.deleteEventsWithoutDeliveries(cutoff, BATCH)));
        return new NotificationsSwept(deliveries, events);
    }

    /** Runs {@code delete} until it deletes fewer than a batch; answers how many it deleted in all. */
    private int inStatements(Supplier<Integer> delete) {
        int total = 0;
        int deleted;
        do {
            deleted = delete.get();
            total += deleted;
        } while (deleted == BATCH && !closing);
        return total;
    }

    private record Tally(int count, long bytes) {
    }

    /**
     * Takes batches of expired rows until one comes back short, deleting each: {@code delete} answers the bytes it
     * freed, or -1 when another sweeper had deleted the row first.
     */
    private <T> Tally inBatches(Supplier<List<T>> expired, ToLongFunction<T> delete) {
        int count = 0;
        long bytes = 0;
        List<T> batch;
        do {
            batch = expired.get();
            for (T row : batch) {
                long freed = delete.applyAsLong(row);
                if (freed >= 0) {
                    count++;
                    bytes += freed;
                }
            }
        } while (batch.size() == BATCH && !closing);
        return new Tally(count, bytes);
    }

    private <R> R dao(Function<RetentionDao, R> call) {
        return jdbi.withExtension(RetentionDao.class, call::apply);
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
