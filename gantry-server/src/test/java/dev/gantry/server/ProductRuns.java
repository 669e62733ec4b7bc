package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * Workflow runs made through the product, for the insights' tests: pipelines triggered over the API and planned from
 * a real repository, their one job run by an agent through the agent API with test results, reruns through the API;
 * then moved in time ({@link #at}), as the insights need runs on several days.
 */
final class ProductRuns {
    private final TestServer server;
    private final ApiClient api;
    private final AgentClient agent;
    private final String agentId;
    private final String project;

    /** @param project the project's slug, e.g. {@code gantry/acme/app} */
    ProductRuns(TestServer server, AgentClient agent, String agentId, String project) {
        this.server = server;
        this.api = server.api();
        this.agent = agent;
        this.agentId = agentId;
        this.project = project;
    }

    /** A JUnit result as the agent reports it, of class {@code app.Tests}. */
    static String test(String name, String result, double seconds) {
        return String.format(Locale.ROOT, "{\"classname\": \"app.Tests\", \"name\": \"%s\", \"result\": \"%s\", "
                + "\"run_time\": %.2f}", name, result, seconds);
    }

    /** Triggers a pipeline on {@code branch} and returns its id. */
    String trigger(String branch) {
        ApiClient.Answer answer = api.post("/api/v2/project/" + project + "/pipeline", "{\"branch\": \"" + branch
                + "\"}");
        assertThat(answer.status()).as(answer.body()).isEqualTo(201);
        return answer.text("id");
    }

    AgentClient.Claimed claim() {
        for (int attempt = 0; attempt < 30; attempt++) {
            ApiClient.Answer answer = agent.claim(agentId, 4, 8192);
            if (answer.status() == 200) {
                return AgentClient.claimed(answer);
            }
        }
        throw new AssertionError("no task to claim");
    }

    /** Runs the pipeline's one job with {@code tests}, ending it {@code status}; returns its workflow's id. */
    String finish(String pipeline, String status, String... tests) {
        String workflow = await().atMost(Duration.ofSeconds(20)).until(() -> api.get("/api/v2/pipeline/" + pipeline
                + "/workflow").json().path("items").path(0).path("id").asText(""), id -> !id.isEmpty());
        return run(workflow, status, tests);
    }

    /** Reruns the workflow and runs the rerun's job as {@link #finish} does; returns the rerun's id. */
    String rerun(String workflow, String status, String... tests) {
        ApiClient.Answer answer = api.post("/api/v2/workflow/" + workflow + "/rerun", "");
        assertThat(answer.status()).as(answer.body()).isEqualTo(202);
        return run(answer.text("workflow_id"), status, tests);
    }

    private String run(String workflow, String status, String... tests) {
        AgentClient.Claimed task = claim();
        assertThat(agent.json("POST", task.path() + "/tests", "{\"tests\": [" + String.join(", ", tests) + "]}",
                task.lease()).status()).isLessThan(300);
        assertThat(agent.complete(task, task.lease(), status).status()).isLessThan(300);
        await().atMost(Duration.ofSeconds(20)).until(() -> api.get("/api/v2/workflow/" + workflow).json()
                .path("status").asText(), status::equals);
        return workflow;
    }

    /**
     * Moves a finished workflow and its jobs to {@code start}, lasting {@code took}: the product ran it just now.
     * The usage ledger keeps what it charged, as it would for a run that really took place then.
     */
    void at(String workflow, Instant start, Duration took) {
        var from = start.atOffset(ZoneOffset.UTC);
        var to = start.plus(took).atOffset(ZoneOffset.UTC);
        server.jdbi().useHandle(h -> {
            h.createUpdate("""
                    UPDATE gantry.workflow SET created_at = :start, stopped_at = :stop WHERE id = CAST(:id AS uuid)""")
                    .bind("start", from).bind("stop", to).bind("id", workflow).execute();
            h.createUpdate("""
                    UPDATE gantry.job SET created_at = :start, queued_at = :start, started_at = :start,
                                          stopped_at = :stop
                    WHERE workflow_id = CAST(:id AS uuid)""")
                    .bind("start", from).bind("stop", to).bind("id", workflow).execute();
        });
    }
}
