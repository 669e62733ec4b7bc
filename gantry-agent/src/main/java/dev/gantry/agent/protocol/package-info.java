/**
 * The agent side of the agent protocol (docs/agent-protocol.md, version 1 under {@code /api/agent/v1}): the
 * {@link dev.gantry.agent.protocol.AgentServer} interface, one method per endpoint, its HTTP implementation, the
 * records that travel, and the exceptions that say what the agent must do (stop a task, register again, give up).
 * Whether a failure is retried is decided in one place, {@code HttpCalls.retryable}. Everything here is thread-safe.
 */
package dev.gantry.agent.protocol;
