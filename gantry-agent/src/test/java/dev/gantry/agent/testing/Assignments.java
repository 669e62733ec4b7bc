package dev.gantry.agent.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.config.plan.Executor;
import dev.gantry.config.plan.JobType;
import dev.gantry.config.plan.PlanJob;
import dev.gantry.config.plan.PlanJson;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builds assignments in the protocol's JSON (without the lease, which the fake gives at claim time). */
public final class Assignments {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Assignments() {
    }

    public static PlanJob job(String name, List<Step> steps) {
        return new PlanJob(name, name, JobType.BUILD, Map.of(), "medium", new Executor.Docker(List.of(
                new Executor.DockerImage("cimg/base:2024.01", null, null, null, null, Map.of(), null, null))), 1, null,
                null, Map.of("JOB_VAR", "from-job"), List.of(), null, Map.of(), steps);
    }

    /** A job whose executor is these images, the first the primary. */
    public static PlanJob job(String name, List<Executor.DockerImage> images, List<Step> steps) {
        return new PlanJob(name, name, JobType.BUILD, Map.of(), "medium", new Executor.Docker(images), 1, null,
                null, Map.of("JOB_VAR", "from-job"), List.of(), null, Map.of(), steps);
    }

    /** A {@code machine} job on {@code image} (null: the default machine image). */
    public static PlanJob machineJob(String name, String image, List<Step> steps) {
        return new PlanJob(name, name, JobType.BUILD, Map.of(), "medium", new Executor.Machine(image, false), 1, null,
                null, Map.of("JOB_VAR", "from-job"), List.of(), null, Map.of(), steps);
    }

    /** An image as a config names it, with {@code environment} and nothing else set. */
    public static Executor.DockerImage image(String image, Map<String, String> environment) {
        return new Executor.DockerImage(image, null, null, null, null, environment, null, null);
    }

    public static Step.Run run(String name, String command) {
        return new Step.Run(name, command, null, Map.of(), false, null, null, Step.When.ON_SUCCESS);
    }

    public static Step.Run run(String name, String command, Step.When when) {
        return new Step.Run(name, command, null, Map.of(), false, null, null, when);
    }

    public static Step.Run silentFor(String name, String command, Duration noOutputTimeout) {
        return new Step.Run(name, command, null, Map.of(), false, null, noOutputTimeout, Step.When.ON_SUCCESS);
    }

    public static Step.Run background(String name, String command) {
        return new Step.Run(name, command, null, Map.of(), true, null, null, Step.When.ON_SUCCESS);
    }

    /** An assignment for {@code job}; the job id is fresh, returned in {@code /task/job_id}. */
    public static ObjectNode of(PlanJob job, String vcsUrl, String branch, String revision) {
        String jobId = UUID.randomUUID().toString();
        ObjectNode a = JSON.createObjectNode();
        a.putObject("task").put("job_id", jobId).put("node_index", 0);
        ObjectNode j = a.putObject("job");
        j.put("id", jobId).put("number", 17).put("name", job.name()).put("attempt", 1).put("parallelism", 1)
                .put("resource_class", job.resourceClass());
        j.putObject("executor").put("type", "docker").put("image", "cimg/base:2024.01");
        try {
            j.set("spec", JSON.readTree(PlanJson.writeJob(job)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        a.putObject("pipeline").put("id", UUID.randomUUID().toString()).put("number", 5).put("branch", branch)
                .putNull("tag").put("revision", revision).putObject("parameters");
        a.putObject("workflow").put("id", UUID.randomUUID().toString()).put("name", "build-and-test");
        a.putObject("project").put("id", UUID.randomUUID().toString()).put("slug", "gantry/acme/app")
                .put("name", "app").put("organization_name", "acme").put("vcs_url", vcsUrl);
        return a;
    }

    /** {@code assignment} as node {@code index} of a job of {@code parallelism} nodes. */
    public static ObjectNode node(ObjectNode assignment, int index, int parallelism) {
        ObjectNode copy = assignment.deepCopy();
        ((ObjectNode) copy.get("task")).put("node_index", index);
        ((ObjectNode) copy.get("job")).put("parallelism", parallelism);
        return copy;
    }

    /** {@code assignment} with its resource class's size, as the server sends it. */
    public static ObjectNode sized(ObjectNode assignment, int cpu, int memoryMb) {
        ObjectNode copy = assignment.deepCopy();
        ((ObjectNode) copy.get("job")).put("cpu", cpu).put("memory_mb", memoryMb);
        return copy;
    }

    /** {@code assignment} with the project's and contexts' variables, as the server merges them, in this order. */
    public static ObjectNode withSecrets(ObjectNode assignment, Map<String, String> secrets) {
        ObjectNode copy = assignment.deepCopy();
        ObjectNode node = copy.putObject("secrets");
        secrets.forEach(node::put);
        return copy;
    }

    public static String jobId(ObjectNode assignment) {
        return assignment.at("/task/job_id").asText();
    }
}
