package dev.gantry.agent.task;

import static dev.gantry.agent.testing.Assignments.background;
import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static dev.gantry.agent.testing.Assignments.silentFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.executor.ProcessTree;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.agent.testing.FakeAgentApi.FakeTask;
import dev.gantry.config.plan.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskRunnerIT {
    @TempDir
    Path work;
    @TempDir
    Path scratch;
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
    void steps_stream_their_output_in_order_under_a_header_with_circleci_variables() throws Exception {
        ObjectNode a = Assignments.of(job("unit", List.of(
                run("First", "echo one; echo two >&2; echo \"$JOB_VAR $CIRCLE_JOB $CIRCLE_BRANCH $CIRCLE_NODE_TOTAL\"; pwd"),
                run("Second", "echo \"home=$HOME\"; test -z \"$GANTRY_AGENT_TOKEN_PROBE\""))), "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(outcome).contains(TaskOutcome.SUCCESS);
        assertThat(task.status()).isEqualTo("success");
        String out = task.outputText();
        assertThat(out.lines().findFirst().orElseThrow()).contains("host shell").contains("cimg/base:2024.01");
        assertThat(out).containsSubsequence("==> First\n", "one\n", "two\n", "from-job unit main 1\n",
                "/home/project\n", "==> Second\n", "home=" + work.toRealPath());
        Map<Integer, JsonNode> last = task.lastReports();
        assertThat(last.get(0).path("status").asText()).isEqualTo("success");
        assertThat(last.get(0).path("exit_code").asInt()).isEqualTo(0);
        assertThat(last.get(1).path("output_offset").asLong()).isGreaterThan(last.get(0).path("output_offset").asLong());
        assertThat(out.substring((int) last.get(1).path("output_offset").asLong())).startsWith("==> Second\n");
        assertThat(task.steps.getFirst().getValue().path("status").asText()).isEqualTo("running");
        assertThat(work).isDirectoryNotContaining(p -> !p.getFileName().toString().equals(CompletionSpool.DIRECTORY));
        assertThat(work.resolve(CompletionSpool.DIRECTORY)).as("nothing kept once delivered").isEmptyDirectory();
    }

    @Test
    void a_short_task_sends_its_step_end_and_output_with_the_completion() throws Exception {
        ObjectNode a = Assignments.of(job("quick", List.of(run("Quick", "echo done"))), "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(outcome).contains(TaskOutcome.SUCCESS);
        assertThat(task.steps).hasSize(2);
        assertThat(task.steps.get(0).getValue().path("status").asText()).isEqualTo("running");
        assertThat(task.steps.get(1).getValue().path("status").asText()).isEqualTo("success");
        assertThat(task.outputText()).contains("==> Quick\n", "done\n");
        assertThat(task.outputCalls).as("output calls besides the completion").hasValue(0);
    }

    @Test
    void a_failed_step_skips_later_steps_but_on_fail_and_always_steps_run() throws Exception {
        ObjectNode a = Assignments.of(job("fails", List.of(
                run("Good", "echo good"),
                run("Bad", "echo bad; exit 3"),
                run("Skipped", "echo should-not-run"),
                run("On fail", "echo cleanup-on-fail", Step.When.ON_FAIL),
                run("Always", "echo always-runs", Step.When.ALWAYS))), "", "main", "abc");

        Optional<TaskOutcome> outcome = harness.run(a);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(outcome).contains(TaskOutcome.FAILED);
        assertThat(task.status()).isEqualTo("failed");
        Map<Integer, JsonNode> last = task.lastReports();
        assertThat(List.of(0, 1, 2, 3, 4)).map(i -> last.get(i).path("status").asText())
                .containsExactly("success", "failed", "skipped", "success", "success");
        assertThat(last.get(1).path("exit_code").asInt()).isEqualTo(3);
        assertThat(task.outputText()).contains("cleanup-on-fail", "always-runs").doesNotContain("should-not-run");
    }

    @Test
    void output_is_visible_within_a_second_while_the_step_still_runs() throws Exception {
        ObjectNode a = Assignments.of(job("slow", List.of(run("Slow", "echo early; sleep 3; echo late"))), "", "main", "x");

        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);

        await().atMost(Duration.ofMillis(2500)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("early\n"));
        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).doesNotContain("late\n");
        assertThat(running.get(20, TimeUnit.SECONDS)).contains(TaskOutcome.SUCCESS);
        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).contains("late\n");
    }

    @Test
    void output_sent_while_the_server_answers_503_arrives_whole_and_in_order() throws Exception {
        harness.api.failOutputCalls.set(3);
        ObjectNode a = Assignments.of(job("flaky", List.of(run("Count", "for i in $(seq 1 200); do echo line-$i; done"))),
                "", "main", "x");

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        String out = harness.api.task(Assignments.jobId(a)).outputText();
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i <= 200; i++) {
            expected.append("line-").append(i).append('\n');
        }
        assertThat(out).contains(expected);
    }

    @Test
    void no_output_timeout_kills_a_step_that_stays_silent() throws Exception {
        ObjectNode a = Assignments.of(job("hangs", List.of(
                silentFor("Hang", "echo $$ > " + scratch.resolve("pid") + "; echo start; sleep 60", Duration.ofSeconds(1)))),
                "", "main", "x");
        long started = System.nanoTime();

        Optional<TaskOutcome> outcome = harness.run(a);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        assertThat(outcome).contains(TaskOutcome.FAILED);
        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.outputText()).contains("Too long with no output (exceeded 1s)");
        assertThat(task.lastReports().get(0).path("status").asText()).isEqualTo("failed");
        assertThat(alive(pids(scratch.resolve("pid")))).isEmpty();
    }

    @Test
    void cancel_kills_the_whole_process_tree_and_skips_the_rest() throws Exception {
        Path pids = scratch.resolve("pids");
        ObjectNode a = Assignments.of(job("canceled", List.of(
                run("Tree", "echo $$ >> " + pids + "; sleep 1000 & echo $! >> " + pids + "; "
                        + "(sleep 1000; echo never) & echo $! >> " + pids + "; echo started; wait"),
                run("After", "echo after", Step.When.ALWAYS))), "", "main", "x");

        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(10)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("started"));
        List<Long> started = pids(pids);
        assertThat(alive(started)).hasSize(3);
        harness.api.task(Assignments.jobId(a)).cancel = true;

        assertThat(running.get(20, TimeUnit.SECONDS)).contains(TaskOutcome.CANCELED);
        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.status()).isEqualTo("canceled");
        assertThat(task.lastReports().get(0).path("status").asText()).isEqualTo("canceled");
        assertThat(task.lastReports().get(1).path("status").asText()).isEqualTo("skipped");
        assertThat(alive(started)).isEmpty();
    }

    @Test
    void a_background_step_runs_alongside_and_is_killed_when_the_job_ends() throws Exception {
        Path pid = scratch.resolve("bg.pid");
        ObjectNode a = Assignments.of(job("bg", List.of(
                background("Server", "echo $$ > " + pid + "; while true; do echo tick; sleep 0.2; done"),
                run("Main", "sleep 1; echo main-done"))), "", "main", "x");

        Optional<TaskOutcome> outcome = harness.run(a);

        assertThat(outcome).contains(TaskOutcome.SUCCESS);
        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(task.outputText()).contains("tick\n", "main-done\n");
        assertThat(task.lastReports().get(0).path("status").asText()).isEqualTo("canceled");
        assertThat(task.lastReports().get(1).path("status").asText()).isEqualTo("success");
        assertThat(alive(pids(pid))).isEmpty();
    }

    @Test
    void a_process_a_step_left_behind_outside_its_tree_is_killed_when_the_job_ends() throws Exception {
        Path pid = scratch.resolve("orphan.pid");
        // The subshell exits at once, so sleep is re-parented: only the task's marker still finds it.
        ObjectNode a = Assignments.of(job("orphan", List.of(
                run("Leave", "(sleep 1000 > /dev/null 2>&1 & echo $! > " + pid + ")"))), "", "main", "x");

        Optional<TaskOutcome> outcome = harness.run(a);

        assertThat(outcome).contains(TaskOutcome.SUCCESS);
        assertThat(pids(pid)).hasSize(1);
        assertThat(alive(pids(pid))).isEmpty();
    }

    @Test
    void a_lost_lease_kills_the_task_and_sends_nothing_more() throws Exception {
        Path pid = scratch.resolve("pid");
        ObjectNode a = Assignments.of(job("lost", List.of(
                run("Long", "echo $$ > " + pid + "; echo started; sleep 1000"))), "", "main", "x");

        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(10)).until(() -> harness.api.task(Assignments.jobId(a)) != null
                && harness.api.task(Assignments.jobId(a)).outputText().contains("started"));
        harness.api.task(Assignments.jobId(a)).revoked = true;

        assertThat(running.get(20, TimeUnit.SECONDS)).isEmpty();
        assertThat(harness.api.task(Assignments.jobId(a)).status()).isNull();
        assertThat(alive(pids(pid))).isEmpty();
    }

    @Test
    void secrets_are_in_a_host_step_s_environment_under_the_job_s_and_masked_in_its_output() throws Exception {
        String token = "s3cr3t-value-4711";
        ObjectNode a = Assignments.withSecrets(Assignments.of(job("secrets", List.of(run("Print",
                "[ \"$API_TOKEN\" = 's3cr3t-''value-4711' ] && echo the-value-arrived\n"
                        + "echo \"token=$API_TOKEN job=$JOB_VAR short=$SHORT\"\n"
                        + "printf %s \"$API_TOKEN\" | base64\n"
                        + "printf 's3cr3t-'; sleep 0.3; printf 'value-4711\\n'"))), "", "main", "x"),
                Map.of("API_TOKEN", token, "JOB_VAR", "from-context", "SHORT", "abc"));

        Optional<TaskOutcome> outcome = harness.run(a);

        String out = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(out).contains(TaskOutcome.SUCCESS);
        assertThat(out).contains("the-value-arrived\ntoken=******** job=from-job short=abc\n********\n********\n")
                .doesNotContain(token, java.util.Base64.getEncoder().encodeToString(token.getBytes()));
    }

    @Test
    void a_job_the_server_refuses_its_secrets_fails_without_running_a_step() throws Exception {
        ObjectNode a = Assignments.of(job("deploy", List.of(run("Deploy", "echo deploying"))), "", "main", "x");
        a.put("secrets_error", "The job names context 'prod', which it may not use.");

        Optional<TaskOutcome> outcome = harness.run(a);

        FakeTask task = harness.api.task(Assignments.jobId(a));
        assertThat(outcome).contains(TaskOutcome.FAILED);
        assertThat(task.message()).isEqualTo("The job names context 'prod', which it may not use.");
        assertThat(task.outputText()).contains("Cannot run the job: The job names context 'prod'")
                .doesNotContain("deploying");
        assertThat(task.steps).isEmpty();
    }

    @Test
    void a_repository_url_s_credentials_never_reach_the_output_even_when_git_fails_on_it() throws Exception {
        ObjectNode a = Assignments.of(job("checkout", List.of(new Step.Checkout("Checkout code", null,
                Step.When.ON_SUCCESS))), "https://bot:tok-s3cret-9876@127.0.0.1:9/acme/app.git", "main", "x");

        Optional<TaskOutcome> outcome = harness.run(a);

        String out = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(outcome).as(out).contains(TaskOutcome.FAILED);
        assertThat(out).contains("$ git clone --no-checkout https://127.0.0.1:9/acme/app.git")
                .doesNotContain("tok-s3cret-9876");
    }

    static List<Long> pids(Path file) throws Exception {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.map(String::strip).filter(s -> !s.isEmpty()).map(Long::parseLong).toList();
        }
    }

    static List<Long> alive(List<Long> pids) {
        return pids.stream().filter(p -> ProcessHandle.of(p).map(ProcessTree::running).orElse(false)).toList();
    }
}
