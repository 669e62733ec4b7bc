package dev.gantry.server.usage;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.run.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * What a task attempt is charged, as CircleCI charges a job: the time it ran on a machine, whatever its outcome
 * (success, failed, canceled while it ran, an infrastructure failure), in started minutes at the credits per minute
 * of its resource class. The one copy of the rule: the live write at the task's end and the backfill both call it.
 * Pure and stateless.
 *
 * <ul>
 *   <li>Charged: a task that ended after an agent had it ({@code accepted_at} set). It ran from its claim
 *       ({@code started_at}) to its end: the moment the lease sweeper gave it up as lost if it did (a late result
 *       that replaces the sweeper's verdict does not lengthen the bill, the server had stopped counting), else its
 *       stop.</li>
 *   <li>Not charged: a task that never started (canceled while queued), one its agent never accepted (the sweeper
 *       puts it back in the queue, or cancels it), one still queued or running.</li>
 *   <li>Minutes are started minutes, at least one: 1 ms is one minute, 60,000 ms one, 60,001 ms two.</li>
 *   <li>A resource class the fleet file does not name (any more) costs 0 credits per minute; its minutes are kept.</li>
 * </ul>
 */
public final class UsageRule {
    static final long MINUTE_MS = 60_000;

    private UsageRule() {
    }

    /** The charge for {@code task}, or empty when the rule charges nothing for it. */
    public static Optional<Charge> charge(TaskRecord task, ResourceClasses classes) {
        Instant end = task.givenUpAt() != null ? task.givenUpAt() : task.stoppedAt();
        if (task.startedAt() == null || task.acceptedAt() == null || end == null || task.resourceClass() == null
                || !TaskStatus.ofWord(task.status()).terminal()) {
            return Optional.empty();
        }
        long runMs = Math.max(0, Duration.between(task.startedAt(), end).toMillis());
        long minutes = minutes(runMs);
        int price = classes.find(task.resourceClass()).map(ResourceClass::creditsPerMinute).orElse(0);
        return Optional.of(new Charge(task.jobId(), task.nodeIndex(), task.attempt(), task.organization(),
                task.projectId(), task.projectName(), task.jobName(), task.actor(), task.resourceClass(),
                task.agentId(), task.startedAt(), end, runMs, minutes, price, Math.multiplyExact(minutes, price),
                LocalDate.ofInstant(end, ZoneOffset.UTC)));
    }

    /** Started minutes of a run of {@code runMs}: at least one. */
    static long minutes(long runMs) {
        return Math.max(1, Math.ceilDiv(runMs, MINUTE_MS));
    }
}
