package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets from the API to a job and back, with a real server and a real agent process on the docker executor: a
 * project variable and a context's reach the job's steps, the output API shows them masked (raw and base64), and a job
 * naming a context its organization lacks fails before its steps, saying which.
 */
class SecretsEndToEndIT {
    static final String TOKEN = "tok-" + "9f8e7d6c5b4a-4711";
    static final String REGION = "eu-secret-" + "region-1";

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    GantryProcesses gantry;

    @AfterEach
    void stop() {
        if (gantry != null) {
            gantry.close();
        }
    }

    @Test
    void a_job_gets_its_project_and_context_variables_and_its_output_shows_them_masked() throws Exception {
        Files.createDirectories(repository.resolve(".circleci"));
        Files.writeString(repository.resolve(".circleci/config.yml"), """
                version: 2.1
                jobs:
                  deploy:
                    docker: [{image: cimg/base:2024.01}]
                    steps:
                      - run: |
                          echo "token=$DEPLOY_TOKEN region=$REGION"
                          printf %s "$DEPLOY_TOKEN" | base64
                  audit:
                    docker: [{image: cimg/base:2024.01}]
                    steps:
                      - run: echo "audit ran"
                workflows:
                  main:
                    jobs:
                      - deploy: {context: [aws]}
                      - audit: {context: [nope]}
                """);
        Git.run(repository, "init", "-q", "-b", "main");
        Git.run(repository, "add", "-A");
        Git.run(repository, "commit", "-q", "-m", "deploy");
        gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of());
        gantry.startServer();
        assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "app", "repo_url", repository.toString()))
                .status()).isEqualTo(201);
        assertThat(gantry.admin().post("/api/v2/project/gh/local/app/envvar", Map.of("name", "DEPLOY_TOKEN",
                "value", TOKEN)).status()).isEqualTo(201);
        String context = gantry.admin().post("/api/v2/context", Map.of("name", "aws", "owner",
                Map.of("slug", "gh/local"))).json().path("id").asText();
        assertThat(gantry.admin().put("/api/v2/context/" + context + "/environment-variable/REGION",
                "{\"value\": \"" + REGION + "\"}", "application/json").status()).isEqualTo(200);
        gantry.startAgent("boxed", 2, "docker");
        PipelineProbe probe = new PipelineProbe(gantry::admin, "gantry/local/app");

        JsonNode workflow = probe.awaitWorkflow(probe.trigger(), null, "success", "failed");

        Map<String, JsonNode> jobs = probe.jobs(workflow);
        assertThat(PipelineProbe.statuses(jobs)).containsEntry("deploy", "success").containsEntry("audit", "failed");
        String deployed = probe.output(jobs.get("deploy"), 0);
        assertThat(deployed).contains("token=******** region=********")
                .doesNotContain(TOKEN, REGION)
                .doesNotContain(Base64.getEncoder().encodeToString(TOKEN.getBytes(StandardCharsets.UTF_8)));
        String audit = probe.output(jobs.get("audit"), 0);
        assertThat(audit).contains("context 'nope'", "organization local does not have").doesNotContain("audit ran");
        assertThat(Files.readString(gantry.log("server-1")) + Files.readString(gantry.log("agent-boxed-1")))
                .as("the logs").doesNotContain(TOKEN, REGION);
    }
}
