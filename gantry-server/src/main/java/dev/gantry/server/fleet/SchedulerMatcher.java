package dev.gantry.server.fleet;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.Resources;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.server.agent.FreeResources;
import dev.gantry.server.agent.TaskKey;
import dev.gantry.server.agent.TaskMatcher;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.sqlobject.statement.SqlQuery;

/**
 * Claims by the fleet scheduler: reads the snapshot, lets {@link Placement} decide for the whole fleet (best fit,
 * oldest first, reservations for large jobs, organisation limits), and hands the claiming agent the first task the
 * decision put on it that no concurrent claim has locked. Tasks the decision puts elsewhere, or holds back for a
 * reservation, stay queued even when this agent has room: that is how a large job's reserved instance is kept free.
 * Thread-safe.
 */
public final class SchedulerMatcher implements TaskMatcher {
    /** Locks one queued task, unless another claim holds it or it stopped waiting. */
    interface Dao {
        @SqlQuery("""
                SELECT t.node_index
                FROM gantry.job_task t
                JOIN gantry.job j ON j.id = t.job_id
                WHERE t.job_id = :jobId AND t.node_index = :nodeIndex
                  AND t.status = 'queued'
                  AND j.status IN ('queued', 'running')
                  AND NOT j.cancel_requested
                FOR UPDATE OF t SKIP LOCKED
                """)
        Optional<Integer> lockQueued(UUID jobId, int nodeIndex);
    }

    /** The id and organisation of what an agent holds beyond the tasks the database has on it. */
    static final String UNACCOUNTED = "(in use on the agent)";

    private final FleetSnapshots snapshots;
    private final InstantSource clock;

    public SchedulerMatcher(FleetSnapshots snapshots, InstantSource clock) {
        this.snapshots = snapshots;
        this.clock = clock;
    }

    @Override
    public Optional<TaskKey> pick(Handle h, Claimant claimant) {
        String agent = claimant.agentId().toString();
        Optional<Snapshot> loaded = snapshots.loadIfPending(h, clock.instant());
        if (loaded.isEmpty()) {
            return Optional.empty();
        }
        Snapshot snapshot = freeAtMost(loaded.get(), agent, claimant.free());
        Dao dao = h.attach(Dao.class);
        for (Assignment assignment : Placement.place(snapshot).assignments()) {
            TaskKey task = TaskKey.parse(assignment.jobId());
            if (assignment.instanceId().equals(agent) && dao.lockQueued(task.jobId(), task.nodeIndex()).isPresent()) {
                return Optional.of(task);
            }
        }
        return Optional.empty();
    }

    /**
     * The snapshot with the claiming agent offering no more than it says it has free. Its own count wins over the
     * database's: a task it has just ended may not be settled here yet. What it holds beyond its tasks shows as one
     * job of unknown end, so nothing is planned around it ending.
     */
    static Snapshot freeAtMost(Snapshot snapshot, String agentId, FreeResources free) {
        List<Instance> instances = new ArrayList<>(snapshot.instances().size());
        for (Instance i : snapshot.instances()) {
            Resources known = i.free();
            Resources unaccounted = new Resources(Math.max(0, known.vcpu() - free.cpu()),
                    Math.max(0, known.memoryMb() - free.memoryMb()), 0);
            if (!i.id().equals(agentId) || unaccounted.equals(Resources.NONE)) {
                instances.add(i);
                continue;
            }
            List<RunningJob> running = new ArrayList<>(i.running());
            running.add(new RunningJob(UNACCOUNTED, unaccounted, UNACCOUNTED, Optional.empty()));
            instances.add(new Instance(i.id(), i.type(), i.pool(), i.state(), running, i.readyAt()));
        }
        return new Snapshot(snapshot.pending(), instances, snapshot.limits(), snapshot.now());
    }
}
