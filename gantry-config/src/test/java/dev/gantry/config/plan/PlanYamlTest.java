package dev.gantry.config.plan;

import static dev.gantry.config.plan.PlanJsonTest.NODE;
import static dev.gantry.config.plan.PlanJsonTest.approval;
import static dev.gantry.config.plan.PlanJsonTest.build;
import static dev.gantry.config.plan.PlanJsonTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

class PlanYamlTest {

    @Test
    void writes_a_small_plan_as_a_version_2_config() {
        PlanJob test = new PlanJob("test", "test", JobType.BUILD, Map.of("build", List.of(RequiredStatus.SUCCESS)),
                "large", NODE, 2, null, "~/repo", Map.of("CI", "true"), List.of(), null, Map.of(),
                List.of(new Step.Run("Test", "npm test\nnpm run lint\n", null, Map.of(), false, null,
                        Duration.ofMinutes(20), Step.When.ON_SUCCESS)));
        PlanJob deploy = new PlanJob("deploy", "deploy", JobType.BUILD, Map.of("hold", List.of(RequiredStatus.SUCCESS)),
                "medium", NODE, 1, null, null, Map.of(), List.of("prod"), null, Map.of(), List.of(run("Ship", "./ship")));
        Plan plan = new Plan(false, List.of(new PlanWorkflow("main", List.of(
                build("build", NODE, List.of(new Step.Checkout("Checkout code", null, Step.When.ON_SUCCESS))),
                test, approval("hold", "test"), deploy))));

        assertThat(PlanYaml.write(plan)).isEqualTo("""
                version: 2
                jobs:
                  build:
                    docker:
                    - image: cimg/node:20.11
                    resource_class: medium
                    steps:
                    - checkout:
                        name: Checkout code
                  test:
                    docker:
                    - image: cimg/node:20.11
                    resource_class: large
                    parallelism: 2
                    working_directory: ~/repo
                    environment:
                      CI: 'true'
                    steps:
                    - run:
                        name: Test
                        command: |
                          npm test
                          npm run lint
                        no_output_timeout: 20m
                  deploy:
                    docker:
                    - image: cimg/node:20.11
                    resource_class: medium
                    steps:
                    - run:
                        name: Ship
                        command: ./ship
                workflows:
                  version: 2
                  main:
                    jobs:
                    - build
                    - test:
                        requires:
                        - build
                    - hold:
                        type: approval
                        requires:
                        - test
                    - deploy:
                        requires:
                        - hold
                        context:
                        - prod
                """);
    }

    @Test
    void output_parses_back_into_the_same_graph() {
        Map<String, List<RequiredStatus>> requires = new LinkedHashMap<>();
        requires.put("build", List.of(RequiredStatus.SUCCESS));
        requires.put("lint", List.of(RequiredStatus.FAILED));
        requires.put("flaky", List.of(RequiredStatus.SUCCESS, RequiredStatus.FAILED));
        PlanJob report = new PlanJob("report", "report", JobType.BUILD, requires, null, new Executor.Machine(null, false),
                1, "/bin/bash", null, Map.of(), List.of("a", "b"), "reports", Map.of(), List.of(
                        new Step.Run("Bg", "sleep 100", null, Map.of("X", "y: z"), true, null, null, Step.When.ALWAYS),
                        new Step.StoreTestResults("Results", "out", Step.When.ALWAYS)));
        PlanJob noop = new PlanJob("done", "done", JobType.NO_OP, Map.of(), null, null, 1, null, null, Map.of(),
                List.of(), null, Map.of(), List.of());
        Plan plan = new Plan(true, List.of(new PlanWorkflow("w", List.of(
                build("build", new Executor.Macos("15.4.0"), List.of()),
                build("lint", new Executor.Machine("ubuntu-2204:current", true), List.of()),
                build("flaky", NODE, List.of()), report, noop))));

        Map<String, Object> doc = new Yaml().load(PlanYaml.write(plan));

        assertThat(doc).containsEntry("version", 2).containsEntry("setup", true);
        Map<String, Object> jobs = map(doc.get("jobs"));
        assertThat(jobs).containsOnlyKeys("build", "lint", "flaky", "report", "done");
        assertThat(map(jobs.get("build"))).containsEntry("macos", Map.of("xcode", "15.4.0"));
        assertThat(map(jobs.get("lint"))).containsEntry("machine",
                Map.of("image", "ubuntu-2204:current", "docker_layer_caching", true));
        assertThat(map(jobs.get("report"))).containsEntry("machine", true).containsEntry("shell", "/bin/bash")
                .containsEntry("steps", List.of(
                        Map.of("run", Map.of("name", "Bg", "command", "sleep 100", "environment", Map.of("X", "y: z"),
                                "background", true, "when", "always")),
                        Map.of("store_test_results", Map.of("name", "Results", "path", "out", "when", "always"))));
        assertThat(jobs.get("done")).isEqualTo(Map.of("type", "no-op"));
        List<Object> entries = list(map(map(doc.get("workflows")).get("w")).get("jobs"));
        assertThat(entries.get(3)).isEqualTo(Map.of("report", Map.of(
                "requires", List.of("build", Map.of("lint", "failed"), Map.of("flaky", List.of("success", "failed"))),
                "context", List.of("a", "b"),
                "serial-group", "reports")));
    }

    @Test
    void same_instance_name_with_different_content_gets_a_suffix_and_keeps_its_name() {
        PlanJob buildA = build("build", NODE, List.of(run("A", "make a")));
        PlanJob buildB = build("build", NODE, List.of(run("B", "make b")));
        PlanJob testB = new PlanJob("test", "test", JobType.BUILD, Map.of("build", List.of(RequiredStatus.SUCCESS)),
                "medium", NODE, 1, null, null, Map.of(), List.of(), null, Map.of(), List.of(run("T", "make test")));
        Plan plan = new Plan(false, List.of(
                new PlanWorkflow("one", List.of(buildA)),
                new PlanWorkflow("two", List.of(buildB, testB)),
                new PlanWorkflow("three", List.of(buildA))));

        Map<String, Object> doc = new Yaml().load(PlanYaml.write(plan));

        Map<String, Object> jobs = map(doc.get("jobs"));
        assertThat(jobs).containsOnlyKeys("build", "build-2", "test");
        assertThat(jobs.get("build-2").toString()).contains("make b");
        Map<String, Object> workflows = map(doc.get("workflows"));
        assertThat(map(workflows.get("one")).get("jobs")).isEqualTo(List.of("build"));
        assertThat(map(workflows.get("two")).get("jobs")).isEqualTo(List.of(
                Map.of("build-2", Map.of("name", "build")),
                Map.of("test", Map.of("requires", List.of("build")))));
        assertThat(map(workflows.get("three")).get("jobs")).isEqualTo(List.of("build"));
    }

    @Test
    void shared_values_are_written_out_in_full_without_anchors() {
        List<Step> shared = List.of(new Step.SaveCache("Save", "v1", List.of("node_modules"), Step.When.ON_SUCCESS));
        Plan plan = PlanJsonTest.plan(build("a", NODE, shared), build("b", NODE, shared));

        String yaml = PlanYaml.write(plan);

        assertThat(yaml).doesNotContain("&").doesNotContain("*id");
        assertThat(yaml.split("node_modules", -1)).hasSize(3);
        assertThat(PlanYaml.write(plan)).isEqualTo(yaml).endsWith("\n").doesNotContain("\r");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }
}
