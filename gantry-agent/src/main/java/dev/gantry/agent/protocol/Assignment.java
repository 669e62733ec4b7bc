package dev.gantry.agent.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanJson;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One claimed task and everything the agent needs to run it, as {@code POST /agents/{id}/claim} answers it. Field
 * names follow the protocol's JSON in camel case. Immutable. {@link #toString} names the secrets but never shows
 * their values.
 *
 * @param secrets      the project's environment variables, then each of the job's contexts' in the order the job
 *                     names them, merged by the server (a later one wins a name): name to value, in that order; empty
 *                     when the job has none or the server is older than protocol field {@code secrets}
 * @param secretsError why the server refuses the job its secrets (a context it may not use): then the job must not
 *                     run; else null
 */
public record Assignment(String lease, Task task, Job job, Pipeline pipeline, Workflow workflow, Project project,
                         Map<String, String> secrets, String secretsError) {

    public Assignment {
        Map<String, String> ordered = new LinkedHashMap<>();
        if (secrets != null) {
            secrets.forEach((name, value) -> {
                if (name != null && value != null) {
                    ordered.put(name, value);
                }
            });
        }
        secrets = Collections.unmodifiableMap(ordered);
    }

    /** An assignment without secrets. */
    public Assignment(String lease, Task task, Job job, Pipeline pipeline, Workflow workflow, Project project) {
        this(lease, task, job, pipeline, workflow, project, Map.of(), null);
    }

    /** An assignment with these secrets. */
    public Assignment(String lease, Task task, Job job, Pipeline pipeline, Workflow workflow, Project project,
                      Map<String, String> secrets) {
        this(lease, task, job, pipeline, workflow, project, secrets, null);
    }

    /** The task as later calls about it name it. */
    public TaskRef ref() {
        return new TaskRef(task.jobId(), task.nodeIndex(), lease);
    }

    /** The job's expanded definition, read from {@code job.spec}. */
    public PlanJob planJob() {
        return PlanJson.readJob(job.spec().toString());
    }

    /** The record's fields, the secrets by name only: an assignment may end up in a log. */
    @Override
    public String toString() {
        return "Assignment[lease=" + lease + ", task=" + task + ", job=" + job + ", pipeline=" + pipeline
                + ", workflow=" + workflow + ", project=" + project + ", secrets=" + secrets.keySet()
                + ", secretsError=" + secretsError + "]";
    }

    public record Task(String jobId, int nodeIndex) {
    }

    /**
     * @param cpu      what the job's class takes of the agent; 0 from a server that does not say
     * @param memoryMb likewise, in MiB
     * @param spec     {@code PlanJson.writeJob} of the job
     */
    public record Job(String id, long number, String name, int attempt, int parallelism, String resourceClass,
                      int cpu, int memoryMb, ExecutorImage executor, JsonNode spec) {
    }

    /** The job's executor as recorded for display: its type and primary image (null for a default machine). */
    public record ExecutorImage(String type, String image) {
    }

    /**
     * @param branch    null for a tag pipeline
     * @param tag       null unless a tag was pushed
     * @param reviewId  the pull request's number, null unless a pull request webhook triggered the pipeline (and
     *                  from a server older than protocol field {@code review_id})
     * @param reviewUrl the pull request's page, likewise
     * @param continuationKey a setup pipeline's key for {@code POST /api/v2/pipeline/continue}, while it may still be
     *                        continued; else null
     */
    public record Pipeline(String id, long number, String branch, String tag, String revision,
                           Map<String, Object> parameters, String reviewId, String reviewUrl, String continuationKey) {
        /** A pipeline not triggered by a pull request, and not in setup. */
        public Pipeline(String id, long number, String branch, String tag, String revision,
                        Map<String, Object> parameters) {
            this(id, number, branch, tag, revision, parameters, null, null, null);
        }
    }

    public record Workflow(String id, String name) {
    }

    /** @param vcsUrl where {@code git clone} finds the repository: a URL or a local path */
    public record Project(String id, String slug, String name, String organizationName, String vcsUrl) {
    }
}
