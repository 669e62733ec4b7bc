package dev.gantry.agent.protocol;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The server as the agent sees it: one method per endpoint of docs/agent-protocol.md. {@link HttpAgentServer} is the
 * production implementation. Implementations are thread-safe: many tasks call one instance at once.
 *
 * <p>Every method retries transient failures itself and then throws {@link ServerUnavailableException}; a call about
 * a task whose lease is gone throws {@link LeaseLostException}; a refused token throws
 * {@link UnauthorizedException}. Interrupting the calling thread abandons the call.
 */
public interface AgentServer {

    /**
     * {@code POST /register}: a new agent id for each {@code key}; sent again with the same key (its answer was lost),
     * the same agent, with a new credential.
     */
    Registration register(AgentInfo agent, String key) throws InterruptedException;

    /**
     * {@code POST /agents/{id}/claim}: long-polls for a task that fits the free resources; empty after the server's
     * poll timeout.
     *
     * @throws UnknownAgentException if the server no longer knows the agent: register again
     */
    Optional<Assignment> claim(String agentId, int freeCpu, int freeMemoryMb) throws InterruptedException;

    /** {@code POST /tasks/…/heartbeat}: renews the lease; true if the job was canceled and the task must stop. */
    boolean heartbeat(TaskRef task) throws InterruptedException;

    /**
     * {@code POST /tasks/…/output?offset=N}: appends the node's output from byte {@code offset} on.
     *
     * @return the length the server now holds; less than {@code offset + bytes.length} never happens, more means the
     *         server already had some of these bytes
     * @throws OutputOffsetException if {@code offset} is beyond what the server holds: resend from its length
     */
    long appendOutput(TaskRef task, long offset, byte[] bytes) throws InterruptedException;

    /** {@code PUT /tasks/…/steps/{index}}: creates or replaces the step's state. */
    void reportStep(TaskRef task, int stepIndex, StepReport report) throws InterruptedException;

    /**
     * {@code POST /tasks/…/complete}: records what {@code completion} carries and ends the task; repeating it with
     * the same lease is harmless. A completion may come after the lease ran out (the agent or the server was away):
     * it still counts if no other attempt of the job has started, else the server keeps it as superseded.
     *
     * @return false when the server kept it as superseded: it does not count
     * @throws OutputOffsetException if the output's offset is beyond what the server holds: send the output through
     *                               {@link #appendOutput} and complete again without it
     */
    boolean complete(TaskRef task, Completion completion) throws InterruptedException;

    /** The credential this client calls with, once registered: kept with a completion that waits on disk. */
    String credential();

    /** This server, called with {@code credential}: one that an earlier run of this agent registered with. */
    AgentServer as(String credential);

    /** {@code GET /tasks/…/cache?key=…}: the first key that matches, exactly or as the newest of a prefix. */
    Optional<CacheHit> findCache(TaskRef task, List<String> keys) throws InterruptedException;

    /** {@code GET /tasks/…/cache/{key}}: writes the archive to {@code target}. */
    void downloadCache(TaskRef task, String key, Path target) throws InterruptedException;

    /** {@code PUT /tasks/…/cache/{key}}: true if stored, false if the key already exists (caches are immutable). */
    boolean uploadCache(TaskRef task, String key, Path archive) throws InterruptedException;

    /** {@code PUT /tasks/…/workspace}: stores one layer; returns its id. */
    String uploadWorkspaceLayer(TaskRef task, Path archive) throws InterruptedException;

    /** {@code GET /tasks/…/workspace}: the layers of the jobs this one requires, oldest first. */
    List<WorkspaceLayer> workspaceLayers(TaskRef task) throws InterruptedException;

    /** {@code GET /tasks/…/workspace/{id}}: writes the layer's archive to {@code target}. */
    void downloadWorkspaceLayer(TaskRef task, String layerId, Path target) throws InterruptedException;

    /** {@code PUT /tasks/…/artifacts/{path}}: uploads one file as the artifact {@code path}. */
    void uploadArtifact(TaskRef task, String path, Path file) throws InterruptedException;

    /** {@code POST /tasks/…/tests}: one batch of test results. */
    void storeTests(TaskRef task, List<TestCase> tests) throws InterruptedException;

    /** {@code GET /tasks/…/timings}: the test durations of the job's latest successful run; empty before one. */
    List<TestTiming> timings(TaskRef task) throws InterruptedException;
}
