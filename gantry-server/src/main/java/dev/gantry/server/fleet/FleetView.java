package dev.gantry.server.fleet;

import dev.gantry.scheduler.Decision;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Waiting;
import dev.gantry.server.agent.TaskKey;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;

/**
 * What the scheduler would decide now, for readers: why a queued job waits. The decision is worked out afresh from
 * the snapshot, as a claim would, so every server replica answers alike. Thread-safe.
 */
public final class FleetView {
    private final FleetSnapshots snapshots;
    private final Supplier<Optional<String>> dispatchPaused;

    /** @param dispatchPaused why dispatch is paused now, empty while it runs */
    public FleetView(FleetSnapshots snapshots, Supplier<Optional<String>> dispatchPaused) {
        this.snapshots = snapshots;
        this.dispatchPaused = dispatchPaused;
    }

    /** A queued job's state in the decision: where it starts, or why it waits. */
    public sealed interface JobPlacement {
        /** An operator paused dispatch to its pool. */
        record Paused(String pool, Instant since, String reason) implements JobPlacement {
        }

        /** Dispatch is paused: by itself on database distress, or held by an operator; {@code why} says which. */
        record DispatchPaused(String why) implements JobPlacement {
        }

        /** The decision puts it on {@code agentId}; it starts on that agent's next claim. */
        record Starting(String agentId) implements JobPlacement {
        }

        /** The scheduler's reason, with the waiting task as the scheduler saw it (its class and pool). */
        record Waits(Waiting waiting, PendingJob task) implements JobPlacement {
        }
    }

    /** The placement of the first of {@code jobId}'s tasks that is still queued; empty when none is. */
    public Optional<JobPlacement> placementOf(Handle h, UUID jobId, Instant now) {
        Optional<String> held = dispatchPaused.get();
        if (held.isPresent()) {
            return held.map(JobPlacement.DispatchPaused::new);
        }
        FleetSnapshots.Loaded loaded = snapshots.load(h, now);
        String prefix = jobId + "/";
        Optional<JobPlacement> paused = loaded.paused().stream()
                .filter(j -> j.id().startsWith(prefix))
                .findFirst()
                .map(j -> {
                    FleetDao.PoolPause pause = loaded.pauses().get(j.pool());
                    return new JobPlacement.Paused(pause.pool(), pause.pausedAt(), pause.reason());
                });
        if (paused.isPresent()) {
            return paused;
        }
        Decision decision = Placement.place(loaded.snapshot());
        Optional<JobPlacement> waits = decision.waiting().stream()
                .filter(w -> w.jobId().startsWith(prefix))
                .min((a, b) -> Integer.compare(TaskKey.parse(a.jobId()).nodeIndex(),
                        TaskKey.parse(b.jobId()).nodeIndex()))
                .map(w -> new JobPlacement.Waits(w, loaded.snapshot().pending().stream()
                        .filter(p -> p.id().equals(w.jobId())).findFirst().orElseThrow()));
        if (waits.isPresent()) {
            return waits;
        }
        return decision.assignments().stream()
                .filter(a -> a.jobId().startsWith(prefix))
                .findFirst()
                .map(a -> new JobPlacement.Starting(a.instanceId()));
    }
}
