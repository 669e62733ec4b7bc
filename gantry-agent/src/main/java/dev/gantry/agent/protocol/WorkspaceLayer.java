package dev.gantry.agent.protocol;

/** One persisted workspace layer available to a task: its id and archive size in bytes. */
public record WorkspaceLayer(String id, long size) {
}
