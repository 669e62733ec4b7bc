package dev.gantry.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A job waiting to start.
 *
 * @param pool             the pool it must run in; a pin by image (a macOS image, say) maps to its pool before the
 *                         snapshot is built, and an unpinned job runs in {@link Instance#DEFAULT_POOL}
 * @param expectedDuration how long it is expected to run (from its recent history), or empty when unknown; a job of
 *                         unknown duration is never backfilled onto an instance reserved for an older job, because
 *                         nobody could say it would be gone in time
 */
public record PendingJob(String id, ResourceClass resourceClass, String organization, Instant enqueuedAt, String pool,
                         Optional<Duration> expectedDuration) {
    public PendingJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(resourceClass, "resourceClass");
        Objects.requireNonNull(organization, "organization");
        Objects.requireNonNull(enqueuedAt, "enqueuedAt");
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(expectedDuration, "expectedDuration");
        if (expectedDuration.filter(d -> d.isNegative()).isPresent()) {
            throw new IllegalArgumentException("job " + id + " cannot be expected to run " + expectedDuration.get());
        }
    }

    /** An unpinned job of unknown duration. */
    public PendingJob(String id, ResourceClass resourceClass, String organization, Instant enqueuedAt) {
        this(id, resourceClass, organization, enqueuedAt, Instance.DEFAULT_POOL, Optional.empty());
    }

    /** This job with an expected duration. */
    public PendingJob expecting(Duration duration) {
        return new PendingJob(id, resourceClass, organization, enqueuedAt, pool, Optional.of(duration));
    }

    /** This job pinned to {@code pool}. */
    public PendingJob inPool(String pool) {
        return new PendingJob(id, resourceClass, organization, enqueuedAt, pool, expectedDuration);
    }

    public Resources demand() {
        return resourceClass.demand();
    }
}
