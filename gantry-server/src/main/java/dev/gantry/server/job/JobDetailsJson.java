package dev.gantry.server.job;

import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.project.RepositoryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A job as {@code GET /api/v2/project/{slug}/job/{number}} shows it, with CircleCI's field names, plus Gantry's
 * {@code id}, {@code image} (the recorded docker, machine or macOS image) and {@code steps} in the shape of CircleCI's
 * API v1.1 (one entry per step, one action per parallel node), and {@code waiting}: why a queued job waits (null
 * otherwise). {@code web_url} is the job's own URL on the server (the job's page in the web UI);
 * {@code messages} is empty unless there is something to say: while the job waits, why (type {@code info}, reason
 * the {@code waiting} reason).
 *
 * @param duration milliseconds from start to stop, null until the job has stopped
 */
public record JobDetailsJson(UUID id, long number, String name, String type, String status, String createdAt,
                      String queuedAt, String startedAt, String stoppedAt, Long duration, int parallelism,
                      Project project, Organization organization, Pipeline pipeline, LatestWorkflow latestWorkflow,
                      Executor executor, String image, List<Context> contexts, List<Step> steps,
                      List<ParallelRun> parallelRuns, Waiting waiting, String webUrl, List<Message> messages) {

    /** @param externalUrl the project's repository */
    public record Project(UUID id, String slug, String name, String externalUrl) {
    }

    /** CircleCI's job message: {@code type} (e.g. {@code info}), the text, and a machine-readable reason. */
    public record Message(String type, String message, String reason) {
    }

    public record Organization(String name) {
    }

    public record Pipeline(UUID id) {
    }

    public record LatestWorkflow(UUID id, String name) {
    }

    /** Both null for approvals and no-ops, which run nowhere. */
    public record Executor(String type, String resourceClass) {
    }

    public record Context(String name) {
    }

    public record Step(String name, List<Action> actions) {
    }

    /** @param index the parallel node; {@code step} the step's index in the job's steps */
    public record Action(int index, int step, String name, String status, Integer exitCode, String startTime,
                  String endTime) {
    }

    public record ParallelRun(int index, String status) {
    }

    /** @param webUrl where the job is shown: its URL on the server */
    static JobDetailsJson of(Job job, List<Job.StepRun> stepRuns, List<Job.Task> tasks, Waiting waiting,
                             String webUrl) {
        Duration ran = job.startedAt() != null && job.stoppedAt() != null
                ? Duration.between(job.startedAt(), job.stoppedAt()) : null;
        return new JobDetailsJson(job.id(), job.number(), job.name(), job.type(), job.status(),
                time(job.createdAt()), time(job.queuedAt()), time(job.startedAt()), time(job.stoppedAt()),
                ran == null ? null : ran.toMillis(), job.parallelism(),
                new Project(job.projectId(), new ProjectSlug(job.organization(), job.projectName()).toString(),
                        job.projectName(), RepositoryPolicy.withoutCredentials(job.vcsUrl())),
                new Organization(job.organization()), new Pipeline(job.pipelineId()),
                new LatestWorkflow(job.workflowId(), job.workflowName()),
                new Executor((String) job.executor().get("type"), job.resourceClass()),
                (String) job.executor().get("image"), job.contexts().stream().map(Context::new).toList(),
                steps(stepRuns), tasks.stream().map(t -> new ParallelRun(t.nodeIndex(), t.status())).toList(), waiting,
                webUrl, waiting == null ? List.of()
                        : List.of(new Message("info", waiting.message(), waiting.reason())));
    }

    /** The runs grouped by step (they come ordered by step, then node); each step is named as its first run. */
    private static List<Step> steps(List<Job.StepRun> runs) {
        List<Step> steps = new ArrayList<>();
        List<Action> actions = null;
        int current = -1;
        for (Job.StepRun run : runs) {
            if (run.stepIndex() != current) {
                current = run.stepIndex();
                actions = new ArrayList<>();
                steps.add(new Step(run.name(), actions));
            }
            actions.add(new Action(run.nodeIndex(), run.stepIndex(), run.name(), run.status(), run.exitCode(),
                    time(run.startedAt()), time(run.stoppedAt())));
        }
        return steps.stream().map(step -> new Step(step.name(), List.copyOf(step.actions()))).toList();
    }

    private static String time(Instant instant) {
        return instant == null ? null : Json.time(instant);
    }
}
