package dev.gantry.server.job;

import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.WaitReason;
import dev.gantry.server.fleet.FleetView.JobPlacement;
import dev.gantry.server.http.Json;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Why a job that has not started waits, since when, for how long so far, and when it is expected to start (null when
 * that cannot be estimated).
 *
 * @param reason {@code requires} (a blocked job waits for the jobs it requires), {@code queue_paused} (an operator
 *               paused dispatch to its pool), {@code dispatch_paused} (dispatch paused itself on database distress,
 *               or an operator holds it), {@code starting} (an agent has room and takes it on its next claim), or the scheduler's reason in lower case: {@code no_capacity},
 *               {@code no_instance_large_enough}, {@code org_concurrency_limit}, {@code reserved_for_older_job}
 * @param forMs  how long the job has waited so far
 */
public record Waiting(String reason, String message, String since, long forMs, String estimatedStart) {
    /** A blocked job: it waits for {@code upstream}, the jobs it requires that have not ended as it needs. */
    static Waiting blocked(List<JobDao.Upstream> upstream, Instant createdAt, Instant now) {
        String jobs = upstream.stream().map(u -> u.name() + " (" + u.status() + ")").collect(Collectors.joining(", "));
        return new Waiting("requires", "waiting for the jobs it requires: " + jobs, Json.time(createdAt),
                waited(createdAt, now), null);
    }

    /** A queued job, as the scheduler places it now. */
    static Waiting queued(JobPlacement placement, Instant queuedAt, Instant now) {
        String since = queuedAt == null ? null : Json.time(queuedAt);
        return switch (placement) {
            case JobPlacement.Paused paused -> new Waiting("queue_paused", "dispatch to pool " + paused.pool()
                    + " is paused since " + Json.time(paused.since()) + " (" + paused.reason() + "); it starts once "
                    + "the pool is resumed: POST /api/v2/fleet/pools/" + paused.pool() + "/resume", since,
                    waited(queuedAt, now), null);
            case JobPlacement.DispatchPaused paused -> new Waiting("dispatch_paused", paused.why(), since,
                    waited(queuedAt, now), null);
            case JobPlacement.Starting starting -> new Waiting("starting", "agent " + starting.agentId()
                    + " has room for it and takes it on its next claim", since, waited(queuedAt, now), Json.time(now));
            case JobPlacement.Waits waits -> new Waiting(waits.waiting().reason().name().toLowerCase(Locale.ROOT),
                    waits.waiting().message() + hint(waits.waiting().reason(), waits.task()), since,
                    waited(queuedAt, now),
                    waits.waiting().estimatedStart().map(Json::time).orElse(null));
        };
    }

    /** What an operator can do when no agent could ever run the task: start one that can, in its pool. */
    static String hint(WaitReason reason, PendingJob task) {
        if (reason != WaitReason.NO_INSTANCE_LARGE_ENOUGH) {
            return "";
        }
        ResourceClass needs = task.resourceClass();
        String memoryGb = BigDecimal.valueOf(needs.memoryMb()).divide(BigDecimal.valueOf(1024), 2, RoundingMode.CEILING)
                .stripTrailingZeros().toPlainString();
        return "; start an agent that can: bin/gantry agent --server URL --token-file $GANTRY_HOME/agent-token "
                + "--pool " + task.pool() + " --cpu " + needs.vcpu() + " --memory " + memoryGb;
    }

    private static long waited(Instant since, Instant now) {
        return since == null ? 0 : Math.max(0, Duration.between(since, now).toMillis());
    }
}
