package dev.gantry.scheduler;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A job running on an instance: what it holds, whose it is (for concurrency limits) and when it is expected to end,
 * or empty when unknown. An expected end in the past means the job overran; estimates treat it as ending now.
 */
public record RunningJob(String id, Resources holds, String organization, Optional<Instant> expectedEnd) {
    public RunningJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(holds, "holds");
        Objects.requireNonNull(organization, "organization");
        Objects.requireNonNull(expectedEnd, "expectedEnd");
    }
}
