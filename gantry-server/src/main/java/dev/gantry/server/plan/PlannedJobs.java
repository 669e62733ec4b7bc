package dev.gantry.server.plan;

import dev.gantry.config.plan.Executor;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanJson;
import dev.gantry.config.plan.RequiredStatus;
import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import dev.gantry.server.http.Json;
import dev.gantry.server.run.JobStatus;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** How a compiled job becomes its row: its resource class and size, the summary of its executor. Pure. */
final class PlannedJobs {
    /** The class of a job that names none, as on CircleCI. */
    static final String DEFAULT_CLASS = "medium";

    private PlannedJobs() {
    }

    /**
     * The row of {@code job}, a new {@link JobStatus#BLOCKED} job.
     *
     * @throws IllegalArgumentException if a build job's resource class is unknown ({@link PlanChecks} finds those
     *                                  first)
     */
    static JobRow row(PlanJob job, ResourceClasses classes, UUID id, UUID workflowId, UUID projectId, long number,
                      OffsetDateTime now) {
        String resourceClass = resourceClass(job);
        ResourceClass size = resourceClass == null ? null : classes.find(resourceClass).orElseThrow(
                () -> new IllegalArgumentException("job '" + job.name() + "': unknown resource class '"
                        + resourceClass + "'"));
        Map<String, Object> requires = new LinkedHashMap<>();
        job.requires().forEach((upstream, statuses) ->
                requires.put(upstream, statuses.stream().map(RequiredStatus::word).toList()));
        return new JobRow(id, workflowId, projectId, number, job.name(), job.type().word(), JobStatus.BLOCKED.word(),
                Json.write(requires), resourceClass, size == null ? null : size.vcpu(),
                size == null ? null : size.memoryMb(),
                job.executor() == null ? null : Json.write(executorSummary(job.executor())), job.parallelism(),
                PlanJson.writeJob(job), now);
    }

    /** A build job's class ({@link #DEFAULT_CLASS} when it names none); null for approvals and no-ops. */
    static String resourceClass(PlanJob job) {
        if (job.type() != JobType.BUILD) {
            return null;
        }
        return job.resourceClass() == null ? DEFAULT_CLASS : job.resourceClass();
    }

    /**
     * {@code {"type", "image"}}: the kind of executor and the image it names, for people and the agent. The image is
     * the primary (first) container's for docker, the machine image (null for the default one) or
     * {@code "xcode <version>"} for macOS.
     */
    static Map<String, Object> executorSummary(Executor executor) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("type", executor.kind());
        summary.put("image", switch (executor) {
            case Executor.Docker docker -> docker.images().getFirst().image();
            case Executor.Machine machine -> machine.image();
            case Executor.Macos macos -> "xcode " + macos.xcode();
        });
        return summary;
    }
}
