/**
 * Running one task: its directory and {@code HOME}, environment and secret masking, output log and shipper, heartbeats,
 * the step sequence with {@code when}, each step kind, process trees and how they are killed, and the archives caches
 * and workspaces travel in. {@link dev.gantry.agent.task.TaskRunner} is the entry point; one instance per task.
 */
package dev.gantry.agent.task;
