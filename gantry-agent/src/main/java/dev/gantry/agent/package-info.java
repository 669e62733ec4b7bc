/**
 * The build agent: a process that connects out to a Gantry server, takes tasks (one parallel node of a job each)
 * and runs their steps. The wire contract is docs/agent-protocol.md; {@code dev.gantry.agent.protocol} holds its
 * client, {@code dev.gantry.agent.task} runs one task.
 *
 * <h2>Flow</h2>
 * <ol>
 *   <li>{@link dev.gantry.agent.Agent} registers (name, CPU, memory) and gets an id and the heartbeat, lease and
 *       poll timings. A server that forgot the agent (404 on claim) gets a new registration.</li>
 *   <li>It long-polls {@code claim} with the CPU and memory not taken by running tasks (each task takes its
 *       resource class's size, see {@code ResourceSizes}); each assignment runs on its own thread.</li>
 *   <li>A {@link dev.gantry.agent.task.TaskRunner} gives the task a fresh directory with its own {@code HOME},
 *       heartbeats every interval, ships output every 200 ms, runs the steps in order on an
 *       {@link dev.gantry.agent.executor.Sandbox} (the job's containers, or the host shell when told so), reports each
 *       step, closes the sandbox (its containers removed, what it left running killed) and completes the task, then
 *       removes its directory.</li>
 * </ol>
 *
 * <h2>Retries</h2>
 * Every call retries connection failures, 5xx and 429 with capped exponential backoff and full jitter, honouring
 * {@code Retry-After} ({@link dev.gantry.agent.protocol.RetryPolicy}); a call gives up after the lease timeout.
 * Quick retries are budgeted, one per ten calls plus a burst of ten; beyond that a retry waits the longest wait.
 * The claim loop then waits and asks again (forever, backing off up to 30 s): an agent outlives a server restart.
 * A 401 is fatal. A 409 on a task call means the lease is gone: the task's processes are killed and nothing more is
 * sent about it. Output is resent from the last acknowledged offset; the server skips what it already has.
 *
 * <h2>Threads</h2>
 * One thread claims; one platform thread per running task runs its steps; per task, two virtual threads send
 * heartbeats and output, and one per process pumps its output into the task's log file. The task's state they share
 * is {@code TaskControl} (atomic) and {@code OutputLog} (synchronized). The HTTP client is shared and thread-safe.
 */
package dev.gantry.agent;
