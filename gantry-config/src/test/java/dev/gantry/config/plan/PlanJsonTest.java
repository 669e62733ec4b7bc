package dev.gantry.config.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanJsonTest {

    static final Executor.Docker NODE = new Executor.Docker(List.of(
            new Executor.DockerImage("cimg/node:20.11", null, null, null, null, Map.of(), null, null)));

    static Step.Run run(String name, String command) {
        return new Step.Run(name, command, null, Map.of(), false, null, null, Step.When.ON_SUCCESS);
    }

    static PlanJob build(String name, Executor executor, List<Step> steps) {
        return new PlanJob(name, name, JobType.BUILD, Map.of(), "medium", executor, 1, null, null, Map.of(),
                List.of(), null, Map.of(), steps);
    }

    static PlanJob approval(String name, String upstream) {
        return new PlanJob(name, name, JobType.APPROVAL, Map.of(upstream, List.of(RequiredStatus.SUCCESS)), null, null,
                1, null, null, Map.of(), List.of(), null, Map.of(), List.of());
    }

    @Test
    void writes_a_small_plan_exactly() {
        Plan plan = new Plan(false, List.of(new PlanWorkflow("main", List.of(
                build("build", NODE, List.of(new Step.Checkout("Checkout code", null, Step.When.ON_SUCCESS),
                        run("Install", "npm ci"))),
                approval("hold", "build")))));

        assertThat(PlanJson.write(plan)).isEqualTo("""
                {
                  "workflows": [
                    {
                      "name": "main",
                      "jobs": [
                        {
                          "name": "build",
                          "job": "build",
                          "type": "build",
                          "requires": {},
                          "resource_class": "medium",
                          "executor": {
                            "type": "docker",
                            "images": [
                              {
                                "image": "cimg/node:20.11"
                              }
                            ]
                          },
                          "parallelism": 1,
                          "environment": {},
                          "contexts": [],
                          "steps": [
                            {
                              "checkout": {
                                "name": "Checkout code"
                              }
                            },
                            {
                              "run": {
                                "name": "Install",
                                "command": "npm ci"
                              }
                            }
                          ]
                        },
                        {
                          "name": "hold",
                          "job": "hold",
                          "type": "approval",
                          "requires": {
                            "build": [
                              "success"
                            ]
                          },
                          "parallelism": 1,
                          "environment": {},
                          "contexts": [],
                          "steps": []
                        }
                      ]
                    }
                  ]
                }
                """);
    }

    @Test
    void setup_is_written_only_for_setup_configs() {
        assertThat(PlanJson.write(new Plan(true, List.of()))).isEqualTo("{\n  \"setup\": true,\n  \"workflows\": []\n}\n");
        assertThat(PlanJson.write(new Plan(false, List.of()))).isEqualTo("{\n  \"workflows\": []\n}\n");
    }

    @Test
    void job_fields_keep_their_order_and_optional_ones_appear_when_set() throws Exception {
        Map<String, Object> matrix = new LinkedHashMap<>();
        matrix.put("os", "linux");
        matrix.put("node", 18L);
        matrix.put("coverage", true);
        matrix.put("ratio", 0.5);
        Map<String, List<RequiredStatus>> requires = new LinkedHashMap<>();
        requires.put("lint", List.of(RequiredStatus.SUCCESS));
        requires.put("flaky", List.of(RequiredStatus.FAILED, RequiredStatus.CANCELED));
        PlanJob job = new PlanJob("test-linux-18", "test", JobType.BUILD, requires, "large",
                new Executor.Machine("ubuntu-2204:current", true), 4, "/bin/bash -eo pipefail", "~/repo",
                Map.of("CI", "true"), List.of("aws", "npm"), "deploy-lock", matrix, List.of());

        JsonNode j = new ObjectMapper().readTree(PlanJson.write(plan(job))).at("/workflows/0/jobs/0");

        assertThat(fieldNames(j)).containsExactly("name", "job", "type", "requires", "resource_class", "executor",
                "parallelism", "shell", "working_directory", "environment", "contexts", "serial_group", "matrix",
                "steps");
        assertThat(j.get("requires").toString()).isEqualTo("{\"lint\":[\"success\"],\"flaky\":[\"failed\",\"canceled\"]}");
        assertThat(j.get("executor").toString())
                .isEqualTo("{\"type\":\"machine\",\"image\":\"ubuntu-2204:current\",\"docker_layer_caching\":true}");
        assertThat(j.get("matrix").toString()).isEqualTo("{\"os\":\"linux\",\"node\":18,\"coverage\":true,\"ratio\":0.5}");
        assertThat(j.get("parallelism").asInt()).isEqualTo(4);
        assertThat(j.get("serial_group").asText()).isEqualTo("deploy-lock");
    }

    @Test
    void executors_render_with_their_own_fields() throws Exception {
        Executor.DockerImage primary = new Executor.DockerImage("cimg/python:3.12", "app", List.of("/bin/sh"),
                List.of("-c", "sleep 1"), "circleci", Map.of("PGHOST", "db"), Map.of("username", "$USER"),
                Map.of("oidc_role_arn", "arn:aws:iam::123456789012:role/pull"));
        Executor.DockerImage service = new Executor.DockerImage("postgres:16", null, null, null, null, Map.of(), null, null);
        ObjectMapper mapper = new ObjectMapper();

        JsonNode docker = mapper.readTree(PlanJson.write(plan(build("a", new Executor.Docker(List.of(primary, service)),
                List.of())))).at("/workflows/0/jobs/0/executor");
        JsonNode machine = mapper.readTree(PlanJson.write(plan(build("a", new Executor.Machine(null, false),
                List.of())))).at("/workflows/0/jobs/0/executor");
        JsonNode macos = mapper.readTree(PlanJson.write(plan(build("a", new Executor.Macos("15.4.0"), List.of()))))
                .at("/workflows/0/jobs/0/executor");

        assertThat(docker.toString()).isEqualTo("{\"type\":\"docker\",\"images\":[{\"image\":\"cimg/python:3.12\","
                + "\"name\":\"app\",\"entrypoint\":[\"/bin/sh\"],\"command\":[\"-c\",\"sleep 1\"],\"user\":\"circleci\","
                + "\"environment\":{\"PGHOST\":\"db\"},\"auth\":{\"username\":\"$USER\"},"
                + "\"aws_auth\":{\"oidc_role_arn\":\"arn:aws:iam::123456789012:role/pull\"}},{\"image\":\"postgres:16\"}]}");
        assertThat(machine.toString()).isEqualTo("{\"type\":\"machine\",\"docker_layer_caching\":false}");
        assertThat(macos.toString()).isEqualTo("{\"type\":\"macos\",\"xcode\":\"15.4.0\"}");
    }

    @Test
    void every_step_kind_uses_circleci_key_names_and_drops_defaults() throws Exception {
        List<Step> steps = List.of(
                new Step.Run("Test", "make test", "/bin/zsh", Map.of("A", "1"), true, "src", Duration.ofMinutes(90),
                        Step.When.ALWAYS),
                run("Plain", "true"),
                new Step.Checkout("Checkout code", "~/src", Step.When.ON_SUCCESS),
                new Step.SetupRemoteDocker("Docker", "20.10.24", true, Step.When.ON_SUCCESS),
                new Step.SetupRemoteDocker("Docker", null, false, Step.When.ON_SUCCESS),
                new Step.AddSshKeys("Keys", List.of("SHA256:abc"), Step.When.ON_SUCCESS),
                new Step.AddSshKeys("All keys", List.of(), Step.When.ON_SUCCESS),
                new Step.SaveCache("Save", "v1-{{ checksum \"go.sum\" }}", List.of("~/go/pkg"), Step.When.ON_SUCCESS),
                new Step.RestoreCache("Restore", List.of("v1-a", "v1-"), Step.When.ON_SUCCESS),
                new Step.PersistToWorkspace("Persist", ".", List.of("dist"), Step.When.ON_SUCCESS),
                new Step.AttachWorkspace("Attach", "/tmp/ws", Step.When.ON_SUCCESS),
                new Step.StoreArtifacts("Artifacts", "dist", "build", Step.When.ON_FAIL),
                new Step.StoreTestResults("Results", "reports", Step.When.ALWAYS));

        JsonNode s = new ObjectMapper().readTree(PlanJson.write(plan(build("a", NODE, steps))))
                .at("/workflows/0/jobs/0/steps");

        assertThat(s.get(0).toString()).isEqualTo("{\"run\":{\"name\":\"Test\",\"command\":\"make test\","
                + "\"shell\":\"/bin/zsh\",\"environment\":{\"A\":\"1\"},\"background\":true,\"working_directory\":\"src\","
                + "\"no_output_timeout\":\"1h30m\",\"when\":\"always\"}}");
        assertThat(s.get(1).toString()).isEqualTo("{\"run\":{\"name\":\"Plain\",\"command\":\"true\"}}");
        assertThat(s.get(2).toString()).isEqualTo("{\"checkout\":{\"name\":\"Checkout code\",\"path\":\"~/src\"}}");
        assertThat(s.get(3).toString()).isEqualTo(
                "{\"setup_remote_docker\":{\"name\":\"Docker\",\"version\":\"20.10.24\",\"docker_layer_caching\":true}}");
        assertThat(s.get(4).toString()).isEqualTo("{\"setup_remote_docker\":{\"name\":\"Docker\"}}");
        assertThat(s.get(5).toString()).isEqualTo("{\"add_ssh_keys\":{\"name\":\"Keys\",\"fingerprints\":[\"SHA256:abc\"]}}");
        assertThat(s.get(6).toString()).isEqualTo("{\"add_ssh_keys\":{\"name\":\"All keys\"}}");
        assertThat(s.get(7).toString()).isEqualTo(
                "{\"save_cache\":{\"name\":\"Save\",\"key\":\"v1-{{ checksum \\\"go.sum\\\" }}\",\"paths\":[\"~/go/pkg\"]}}");
        assertThat(s.get(8).toString()).isEqualTo("{\"restore_cache\":{\"name\":\"Restore\",\"keys\":[\"v1-a\",\"v1-\"]}}");
        assertThat(s.get(9).toString()).isEqualTo(
                "{\"persist_to_workspace\":{\"name\":\"Persist\",\"root\":\".\",\"paths\":[\"dist\"]}}");
        assertThat(s.get(10).toString()).isEqualTo("{\"attach_workspace\":{\"name\":\"Attach\",\"at\":\"/tmp/ws\"}}");
        assertThat(s.get(11).toString()).isEqualTo(
                "{\"store_artifacts\":{\"name\":\"Artifacts\",\"path\":\"dist\",\"destination\":\"build\",\"when\":\"on_fail\"}}");
        assertThat(s.get(12).toString()).isEqualTo(
                "{\"store_test_results\":{\"name\":\"Results\",\"path\":\"reports\",\"when\":\"always\"}}");
    }

    @Test
    void durations_read_as_circleci_writes_them() {
        assertThat(PlanYaml.duration(Duration.ofMinutes(10))).isEqualTo("10m");
        assertThat(PlanYaml.duration(Duration.ofMinutes(90))).isEqualTo("1h30m");
        assertThat(PlanYaml.duration(Duration.ofSeconds(45))).isEqualTo("45s");
        assertThat(PlanYaml.duration(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(PlanYaml.duration(Duration.ofSeconds(3725))).isEqualTo("1h2m5s");
        assertThat(PlanYaml.duration(Duration.ZERO)).isEqualTo("0s");
    }

    @Test
    void output_is_deterministic_with_lf_line_ends_and_escapes_text() {
        Plan plan = plan(build("a", NODE, List.of(run("Quote", "echo \"hi\"\r\nprintf '\\t'\n"))));

        String first = PlanJson.write(plan);

        assertThat(PlanJson.write(plan)).isEqualTo(first);
        assertThat(first).endsWith("}\n").doesNotContain("\r").doesNotContain("\" :");
        assertThat(first).contains("\"command\": \"echo \\\"hi\\\"\\r\\nprintf '\\\\t'\\n\"");
    }

    static Plan plan(PlanJob... jobs) {
        return new Plan(false, List.of(new PlanWorkflow("w", List.of(jobs))));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
