package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.queue.Queues;
import dev.gantry.server.project.RepositoryUrls;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.secret.MasterKeys;
import dev.gantry.server.secret.SecretBox;
import dev.gantry.server.secret.Secrets;
import dev.gantry.server.storage.OutputStore;
import dev.gantry.server.usage.UsageLedger;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The agent protocol's server side, called as its HTTP routes call it but without HTTP or threads: for the
 * deterministic simulation test (dev.gantry.server.dst), which plays every agent itself. Each method is the one its
 * route calls; a 409 or 404 comes out as the route's {@link dev.gantry.server.http.ApiException}.
 */
public final class AgentCalls {
    /** What a claim handed out. */
    public record Claimed(UUID lease, TaskKey task, long jobNumber, int attempt) {
    }

    private final Claims claims;
    private final Leases leases;
    private final TaskReportRoutes reports;
    private final LeaseSweeper sweeper;

    public AgentCalls(Jdbi jdbi, Queues queues, AgentSettings settings, TaskMatcher matcher, OutputStore output,
                      UsageLedger usage, InstantSource clock) {
        TaskWakeups wakeups = new TaskWakeups();
        SecretBox box = secretBox(jdbi, clock);
        this.claims = new Claims(jdbi, settings, matcher, wakeups, new OpenClaims(), new Secrets(jdbi, box, clock),
                new RepositoryUrls(box), clock);
        this.leases = new Leases(jdbi, wakeups, settings, clock, usage);
        this.reports = new TaskReportRoutes(jdbi, leases, null, clock);
        this.sweeper = new LeaseSweeper(jdbi, queues, output, clock, settings.leaseTimeout(), wakeups, usage,
                "dst");
    }

    /** {@code POST /register}. */
    public UUID register(String name, int cpu, int memoryMb) {
        return claims.register(name, cpu, memoryMb, null, dev.gantry.scheduler.Instance.DEFAULT_POOL);
    }

    /** One look of {@code POST /agents/{id}/claim}: a task, or empty where the route would wait. */
    public Optional<Claimed> claim(UUID agentId, int freeCpu, int freeMemoryMb) {
        Optional<ObjectNode> assignment = claims.look(agentId, new FreeResources(freeCpu, freeMemoryMb), true);
        return assignment.map(a -> new Claimed(UUID.fromString(a.get("lease").asText()),
                new TaskKey(UUID.fromString(a.get("task").get("job_id").asText()), a.get("task").get("node_index")
                        .asInt()), a.get("job").get("number").asLong(), a.get("job").get("attempt").asInt()));
    }

    /** {@code POST /tasks/{job}/{node}/heartbeat}: whether the job is being canceled. */
    public boolean heartbeat(TaskKey task, UUID lease) {
        return leases.heartbeat(task, lease);
    }

    /** {@code PUT /tasks/{job}/{node}/steps/{index}}. */
    public void step(TaskKey task, UUID lease, int index, String status, Instant startedAt, Instant stoppedAt) {
        reports.recordStep(task, lease, step(index, status, startedAt, stoppedAt));
    }

    /**
     * {@code POST /tasks/{job}/{node}/complete}, carrying the end of step {@code lastStep} (which ended with the
     * task) as the agent's completion does; how it was taken ({@code ended}, {@code repeated}, {@code late} or
     * {@code superseded}).
     */
    public String complete(TaskKey task, UUID lease, TaskStatus status, int lastStep, Instant now) {
        StepUpdate end = step(lastStep, status.word(), now, now);
        return leases.complete(task, lease, status, (h, late) -> end.record(h, task)).name()
                .toLowerCase(java.util.Locale.ROOT);
    }

    private static StepUpdate step(int index, String status, Instant startedAt, Instant stoppedAt) {
        return new StepUpdate(index, "step " + index, status, stoppedAt == null ? null : 0, 0, startedAt, stoppedAt);
    }

    /** One sweep of expired leases; returns how many tasks were given up. */
    public int sweep() {
        return sweeper.sweep();
    }

    /** A real secret box under a master key in a directory of its own (these tests seal nothing). */
    private static SecretBox secretBox(Jdbi jdbi, InstantSource clock) {
        try {
            Path keys = Files.createTempDirectory("gantry-master-key").resolve("master-key");
            return new SecretBox(jdbi, MasterKeys.open(keys), clock);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
