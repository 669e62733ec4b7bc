package dev.gantry.agent.task;

import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.agent.testing.FakeAgentApi.FakeTask;
import dev.gantry.config.plan.Step;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two tasks with their own HOMEs: what the first saves, persists and stores, the second restores and attaches. */
class CachesAndWorkspacesIT {
    static final Step.When ON_SUCCESS = Step.When.ON_SUCCESS;
    static final String JUNIT = """
            <testsuites><testsuite name="s" file="spec/a.js">
              <testcase classname="A" name="passes" time="0.5"/>
              <testcase classname="A" name="fails" time="0.25"><failure message="expected 1">trace</failure></testcase>
            </testsuite></testsuites>""";

    @TempDir
    Path work;
    TaskHarness harness;

    @BeforeEach
    void start() throws Exception {
        harness = new TaskHarness(work);
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    @Test
    void caches_and_workspaces_round_trip_between_tasks_and_artifacts_and_tests_are_stored() throws Exception {
        String key = "v1-{{ .Branch }}-{{ checksum \"package-lock.json\" }}";
        ObjectNode producer = Assignments.of(job("build", List.of(
                run("Make", "mkdir -p ~/.cache/tool deps dist reports/nested && echo cached > ~/.cache/tool/a.txt"
                        + " && echo lock-v1 > package-lock.json && echo dep > deps/d.txt && echo built > dist/app.js"
                        + " && chmod +x dist/app.js && cat > reports/nested/junit.xml <<'EOF'\n" + JUNIT + "\nEOF\n"
                        + "echo 'not xml at all' > reports/junk.xml"),
                new Step.SaveCache("Save", key, List.of("~/.cache/tool", "deps", "missing"), ON_SUCCESS),
                new Step.SaveCache("Save again", key, List.of("deps"), ON_SUCCESS),
                new Step.PersistToWorkspace("Persist", ".", List.of("dist"), ON_SUCCESS),
                new Step.StoreArtifacts("Artifacts", "dist", "build", ON_SUCCESS),
                new Step.StoreTestResults("Tests", "reports", ON_SUCCESS))), "", "main", "abc");

        assertThat(harness.run(producer)).contains(TaskOutcome.SUCCESS);

        FakeTask first = harness.api.task(Assignments.jobId(producer));
        assertThat(harness.api.cacheKeys()).singleElement().asString().startsWith("v1-main-").doesNotContain("{{");
        assertThat(first.outputText()).contains("Skipping missing: it does not exist",
                "Skipping cache generation, cache already exists for key: v1-main-", "Skipped junk.xml: not well-formed");
        assertThat(first.artifacts).containsOnlyKeys("build/app.js");
        assertThat(new String(first.artifacts.get("build/app.js"), StandardCharsets.UTF_8)).isEqualTo("built\n");
        assertThat(first.tests).extracting(t -> t.path("name").asText()).containsExactly("passes", "fails");
        JsonNode failed = first.tests.get(1);
        assertThat(failed.path("result").asText()).isEqualTo("failure");
        assertThat(failed.path("message").asText()).isEqualTo("expected 1\ntrace");
        assertThat(failed.path("file").asText()).isEqualTo("spec/a.js");

        ObjectNode consumer = Assignments.of(job("test", List.of(
                new Step.RestoreCache("Restore", List.of("v1-{{ .Branch }}-"), ON_SUCCESS),
                new Step.AttachWorkspace("Attach", "ws", ON_SUCCESS),
                run("Use", "cat ~/.cache/tool/a.txt deps/d.txt ws/dist/app.js && test -x ws/dist/app.js && echo exec"))),
                "", "main", "def");

        assertThat(harness.run(consumer)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(consumer)).outputText())
                .containsSubsequence("==> Use", "cached\n", "dep\n", "built\n", "exec\n");
    }

    @Test
    void a_cache_miss_and_a_failing_key_template_are_told_apart() throws Exception {
        ObjectNode a = Assignments.of(job("miss", List.of(
                new Step.RestoreCache("Restore", List.of("nothing-here-"), ON_SUCCESS),
                new Step.SaveCache("Bad key", "v1-{{ checksum \"no-such-file\" }}", List.of("."), ON_SUCCESS))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.FAILED);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.outputText()).contains("No cache found for keys: nothing-here-",
                "Cannot make the cache key: cannot read 'no-such-file'");
        assertThat(task.lastReports().get(0).path("status").asText()).isEqualTo("success");
        assertThat(task.lastReports().get(1).path("status").asText()).isEqualTo("failed");
    }

    @Test
    void persisted_paths_are_go_patterns_that_match_whole_names_at_their_depth() throws Exception {
        ObjectNode producer = Assignments.of(job("build", List.of(
                run("Make", "mkdir -p build/libs build/tmp && echo app > build/libs/app.jar"
                        + " && echo src > build/libs/app-sources.jar && echo dot > build/libs/.hidden.jar"
                        + " && echo tmp > build/tmp/app.jar && echo odd > 'build/libs/[x].txt'"
                        + " && echo no > build/libs/app.jar.md5"),
                new Step.PersistToWorkspace("Persist", ".", List.of("build/libs/*.jar", "build/libs/\\[x].txt"),
                        ON_SUCCESS))), "", "main", "abc");

        assertThat(harness.run(producer)).contains(TaskOutcome.SUCCESS);
        assertThat(harness.api.task(Assignments.jobId(producer)).outputText())
                .contains("build/libs/*.jar matches build/libs/.hidden.jar, build/libs/app-sources.jar, "
                        + "build/libs/app.jar\n");

        ObjectNode consumer = Assignments.of(job("test", List.of(
                new Step.AttachWorkspace("Attach", "ws", ON_SUCCESS),
                run("List", "cd ws && find . -type f | sort"))), "", "main", "def");

        assertThat(harness.run(consumer)).contains(TaskOutcome.SUCCESS);
        assertThat(harness.api.task(Assignments.jobId(consumer)).outputText()).endsWith("==> List\n"
                + "./build/libs/.hidden.jar\n./build/libs/[x].txt\n./build/libs/app-sources.jar\n./build/libs/app.jar\n");
    }

    @Test
    void a_pattern_that_matches_nothing_or_is_malformed_fails_its_step_with_the_reason() throws Exception {
        ObjectNode a = Assignments.of(job("build", List.of(
                run("Make", "mkdir -p dist && echo x > dist/app.js"),
                new Step.PersistToWorkspace("No match", ".", List.of("dist/*.js", "dist/*.map"), ON_SUCCESS),
                new Step.PersistToWorkspace("Malformed", ".", List.of("dist/[a-"), Step.When.ALWAYS))),
                "", "main", "abc");

        assertThat(harness.run(a)).contains(TaskOutcome.FAILED);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.outputText()).contains("Cannot persist dist/*.map: the pattern matches nothing in ",
                "Cannot persist dist/[a-: malformed pattern [a-: a [ is not closed");
        assertThat(task.lastReports().get(1).path("status").asText()).isEqualTo("failed");
        assertThat(task.lastReports().get(2).path("status").asText()).isEqualTo("failed");
        assertThat(harness.api.workspaceLayerCount()).isZero();
    }
}
