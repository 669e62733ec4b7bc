package dev.gantry.config.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanJsonReadJobTest {

    @Test
    void every_step_kind_and_executor_field_reads_back_equal() {
        List<Step> steps = List.of(
                new Step.Run("Test", "make test", "/bin/zsh", Map.of("A", "1"), true, "src",
                        Duration.ofMinutes(90).plusMillis(250), Step.When.ALWAYS),
                new Step.Run("Plain", "true", null, Map.of(), false, null, Duration.ZERO, Step.When.ON_SUCCESS),
                new Step.Checkout("Checkout code", "~/src", Step.When.ON_SUCCESS),
                new Step.SetupRemoteDocker("Docker", "20.10.24", true, Step.When.ON_SUCCESS),
                new Step.AddSshKeys("Keys", List.of("SHA256:abc"), Step.When.ON_FAIL),
                new Step.SaveCache("Save", "v1-{{ checksum \"go.sum\" }}", List.of("~/go/pkg"), Step.When.ON_SUCCESS),
                new Step.RestoreCache("Restore", List.of("v1-a", "v1-"), Step.When.ON_SUCCESS),
                new Step.PersistToWorkspace("Persist", ".", List.of("dist"), Step.When.ON_SUCCESS),
                new Step.AttachWorkspace("Attach", "/tmp/ws", Step.When.ON_SUCCESS),
                new Step.StoreArtifacts("Artifacts", "dist", null, Step.When.ON_FAIL),
                new Step.StoreTestResults("Results", "reports", Step.When.ALWAYS));
        Executor.DockerImage primary = new Executor.DockerImage("cimg/python:3.12", "app", List.of("/bin/sh"),
                List.of("-c", "sleep 1"), "circleci", Map.of("PGHOST", "db"), Map.of("username", "$USER"),
                Map.of("aws_access_key_id", "AKIA", "aws_secret_access_key", "$AWS_SECRET"));
        Map<String, Object> matrix = new LinkedHashMap<>();
        matrix.put("os", "linux");
        matrix.put("node", 18L);
        matrix.put("coverage", true);
        matrix.put("ratio", 0.5);
        Map<String, List<RequiredStatus>> requires = new LinkedHashMap<>();
        requires.put("lint", List.of(RequiredStatus.SUCCESS));
        requires.put("flaky", List.of(RequiredStatus.FAILED, RequiredStatus.CANCELED));
        for (Executor executor : List.of(new Executor.Docker(List.of(primary)), new Executor.Machine(null, true),
                new Executor.Macos("15.4.0"))) {
            PlanJob job = new PlanJob("test-linux-18", "test", JobType.BUILD, requires, "large", executor, 4,
                    "/bin/bash -eo pipefail", "~/repo", Map.of("CI", "true"), List.of("aws"), "lock", matrix, steps);

            assertThat(PlanJson.readJob(PlanJson.writeJob(job))).isEqualTo(job);
        }
    }

    @Test
    void an_approval_without_executor_reads_back_equal() {
        PlanJob hold = PlanJsonTest.approval("hold", "build");

        assertThat(PlanJson.readJob(PlanJson.writeJob(hold))).isEqualTo(hold);
    }

    @Test
    void unknown_fields_are_ignored_so_an_older_agent_reads_a_newer_server() {
        PlanJob read = PlanJson.readJob("""
                {"name": "a", "job": "a", "type": "build", "future": {"x": 1},
                 "steps": [{"run": {"name": "n", "command": "c", "retries": 3}}]}""");

        assertThat(read.steps()).containsExactly(PlanJsonTest.run("n", "c"));
        assertThat(read.parallelism()).isEqualTo(1);
    }

    @Test
    void malformed_input_names_the_field_that_is_wrong() {
        assertThatThrownBy(() -> PlanJson.readJob("{not json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("job JSON is not valid JSON");
        assertThatThrownBy(() -> PlanJson.readJob("[]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job JSON must be an object");
        assertThatThrownBy(() -> PlanJson.readJob("{\"job\": \"a\", \"type\": \"build\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("name: is required");
        assertThatThrownBy(() -> PlanJson.readJob("{\"name\": \"a\", \"job\": \"a\", \"type\": \"nightly\"}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("type: must be build, approval or no-op, got 'nightly'");
        assertThatThrownBy(() -> PlanJson.readJob(job("{\"run\": {\"name\": \"n\", \"command\": 5}}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("steps[0].run.command: must be a string, got NUMBER");
        assertThatThrownBy(() -> PlanJson.readJob(job("{\"deploy\": {\"name\": \"n\"}}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("steps[0]: unknown step kind 'deploy'");
        assertThatThrownBy(() -> PlanJson.readJob(job("{\"run\": {\"name\": \"n\", \"command\": \"c\", \"when\": \"later\"}}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("steps[0].run.when: must be on_success, on_fail or always, got 'later'");
        assertThatThrownBy(() -> PlanJson.readJob(job(
                "{\"run\": {\"name\": \"n\", \"command\": \"c\", \"no_output_timeout\": \"ten minutes\"}}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("steps[0].run.no_output_timeout: must be a duration like 10m, 1h30m or 45s, got 'ten minutes'");
    }

    private static String job(String step) {
        return "{\"name\": \"a\", \"job\": \"a\", \"type\": \"build\", \"steps\": [" + step + "]}";
    }
}
