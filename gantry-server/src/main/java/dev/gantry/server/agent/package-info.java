/**
 * The server side of the agent protocol (docs/agent-protocol.md), under {@code /api/agent/v1} behind the agent token.
 *
 * <p>Flow: an agent registers ({@link dev.gantry.server.agent.AgentApi}), then long-polls for a claim. A claim is one
 * transaction: a {@link dev.gantry.server.agent.TaskMatcher} (the fleet scheduler's
 * {@link dev.gantry.server.fleet.SchedulerMatcher}) picks and locks a queued task with {@code SKIP LOCKED}, the task moves to {@code running} under a new lease, and
 * its job to {@code running}. With nothing to hand out, the claim waits for
 * {@link dev.gantry.server.agent.TaskWakeups#tasksQueued()} (called by whoever queues tasks, after its commit) or
 * its one-second re-check. Every later call about the task carries the lease; a call with any other lease is 409,
 * which tells a lost-and-returned agent to stop. Heartbeats renew the lease; the lease sweeper gives up tasks whose
 * lease ran out ({@code infrastructure_fail}). When a job's last task ends, the job takes its outcome and, in the
 * same transaction, a completion advances the workflow ({@code WorkflowAdvancer.advance}) while the sweeper asks for
 * an advance through the durable queue. Retrying a lost job is the orchestrator's.
 *
 * <p>Locking: a transaction that ends a task locks the job row first ({@code FOR NO KEY UPDATE}), then the task, so
 * that two nodes ending at once settle their job once; a completion locks the workflow row before the job, as the
 * orchestrator's cancel and approve do. Calls that record what an agent sent lock the task row
 * against ending meanwhile. Uploads are streamed to storage outside any transaction and indexed after they are
 * complete.
 *
 * <p>Thread safety: every class here is safe for concurrent requests. Unknown JSON fields are ignored, so that a
 * newer agent can talk to an older server.
 */
package dev.gantry.server.agent;
