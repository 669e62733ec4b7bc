package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Reads and waits for a project's pipelines, workflows and jobs through the API, for end-to-end tests. */
final class PipelineProbe {
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    private final Supplier<GantryClient> api;
    private final String slug;

    /** @param api a client each time it is asked (a restarted server is a new client) */
    PipelineProbe(Supplier<GantryClient> api, String slug) {
        this.api = api;
        this.slug = slug;
    }

    /** Triggers a pipeline on main; returns its id. */
    String trigger() {
        GantryClient.Answer triggered = api.get().post("/api/v2/project/" + slug + "/pipeline",
                Map.of("branch", "main"));
        assertThat(triggered.status()).as(triggered.json().toString()).isEqualTo(201);
        return triggered.json().path("id").asText();
    }

    /** Waits until the pipeline's workflow ({@code id}, or any when null) has one of {@code statuses}. */
    JsonNode awaitWorkflow(String pipeline, String id, String... statuses) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
            for (JsonNode workflow : api.get().get("/api/v2/pipeline/" + pipeline + "/workflow").json()
                    .path("items")) {
                if ((id == null || workflow.path("id").asText().equals(id))
                        && List.of(statuses).contains(workflow.path("status").asText())) {
                    found[0] = workflow;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** Waits until the workflow's latest jobs include {@code expected} name → status; returns them by name. */
    Map<String, JsonNode> awaitJobs(JsonNode workflow, Map<String, String> expected) {
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                .until(() -> statuses(jobs(workflow)).entrySet().containsAll(expected.entrySet()));
        return jobs(workflow);
    }

    /** The workflow's jobs by name, the latest attempt of each. */
    Map<String, JsonNode> jobs(JsonNode workflow) {
        Map<String, JsonNode> jobs = new HashMap<>();
        allJobs(workflow).forEach(job -> jobs.merge(job.path("name").asText(), job,
                (a, b) -> number(a) > number(b) ? a : b));
        return jobs;
    }

    /** Every job of the workflow, both attempts of a retried one. */
    List<JsonNode> allJobs(JsonNode workflow) {
        List<JsonNode> jobs = new java.util.ArrayList<>();
        api.get().get("/api/v2/workflow/" + workflow.path("id").asText() + "/job").json().path("items")
                .forEach(jobs::add);
        return jobs;
    }

    static Map<String, String> statuses(Map<String, JsonNode> jobs) {
        Map<String, String> statuses = new HashMap<>();
        jobs.forEach((name, job) -> statuses.put(name, job.path("status").asText()));
        return statuses;
    }

    static long number(JsonNode job) {
        return job.path("job_number").asLong();
    }

    JsonNode detail(JsonNode job) {
        return api.get().get("/api/v2/project/" + slug + "/job/" + number(job)).json();
    }

    String output(JsonNode job, int node) {
        return api.get().getText("/api/v2/project/" + slug + "/job/" + number(job) + "/output?node=" + node);
    }

    JsonNode get(String path) {
        return api.get().get(path).json();
    }

    GantryClient.Answer post(String path, Map<String, ?> body) {
        return api.get().post(path, body);
    }
}
