package dev.gantry.server.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.Json;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.secret.Secrets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The answer to a successful claim, shaped exactly as docs/agent-protocol.md shows it. */
final class Assignment {
    private Assignment() {
    }

    /**
     * The assignment of {@code task} under {@code lease}, from the rows {@code row} read, the repository at
     * {@code vcsUrl} (with its credentials, if any), and the job's secrets:
     * {@code secrets}, name to value in precedence order, or {@code secrets_error}, why the job may not have them
     * (the agent then fails the job with that reason, running nothing).
     */
    static ObjectNode json(UUID lease, TaskKey task, AssignmentDao.Row row, String vcsUrl, Secrets.ForJob secrets) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("lease", lease.toString());
        ObjectNode taskNode = root.putObject("task");
        taskNode.put("job_id", task.jobId().toString());
        taskNode.put("node_index", task.nodeIndex());

        ObjectNode job = root.putObject("job");
        job.put("id", row.jobId().toString());
        job.put("number", row.jobNumber());
        job.put("name", row.jobName());
        job.put("attempt", row.attempt());
        job.put("parallelism", row.parallelism());
        job.put("resource_class", row.resourceClass());
        job.put("cpu", row.cpu());
        job.put("memory_mb", row.memoryMb());
        job.set("executor", parse(row.executor()));
        job.set("spec", parse(row.spec()));

        ObjectNode pipeline = root.putObject("pipeline");
        pipeline.put("id", row.pipelineId().toString());
        pipeline.put("number", row.pipelineNumber());
        pipeline.put("branch", row.branch());
        pipeline.put("tag", row.tag());
        pipeline.put("revision", row.revision());
        pipeline.set("parameters", parse(row.parameters()));
        pipeline.put("review_id", row.reviewId());
        pipeline.put("review_url", row.reviewUrl());
        if (row.continuationKey() != null) { // a setup pipeline not continued yet: its setup jobs continue it
            pipeline.put("continuation_key", row.continuationKey());
        }

        ObjectNode workflow = root.putObject("workflow");
        workflow.put("id", row.workflowId().toString());
        workflow.put("name", row.workflowName());

        ObjectNode project = root.putObject("project");
        project.put("id", row.projectId().toString());
        project.put("slug", new ProjectSlug(row.organization(), row.projectName()).toString());
        project.put("name", row.projectName());
        project.put("organization_name", row.organization());
        project.put("vcs_url", vcsUrl);

        switch (secrets) {
            case Secrets.ForJob.Granted granted -> {
                ObjectNode variables = root.putObject("secrets");
                granted.variables().forEach(variables::put);
            }
            case Secrets.ForJob.Refused refused -> root.put("secrets_error", refused.reason());
        }
        return root;
    }

    /** The contexts the job names, from its spec. */
    static List<String> contexts(AssignmentDao.Row row) {
        List<String> contexts = new ArrayList<>();
        parse(row.spec()).path("contexts").forEach(c -> contexts.add(c.asText()));
        return contexts;
    }

    private static JsonNode parse(String json) {
        if (json == null) {
            return NullNode.getInstance();
        }
        try {
            return Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a jsonb column holds text that is not JSON", e);
        }
    }
}
