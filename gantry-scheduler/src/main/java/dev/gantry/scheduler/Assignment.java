package dev.gantry.scheduler;

/** Start job {@code jobId} on instance {@code instanceId}. */
public record Assignment(String jobId, String instanceId) {
}
