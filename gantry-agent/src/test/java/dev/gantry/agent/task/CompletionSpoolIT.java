package dev.gantry.agent.task;

import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.agent.testing.FakeAgentApi.FakeTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that is away while a task runs and ends (its database down: every call 503) neither stops the task nor
 * loses its result: the completion is kept on disk and a later run of the agent, on the same work directory, delivers
 * it with all of its output. The harness's calls give up after 5 s, so each outage here outlasts several of them.
 */
class CompletionSpoolIT {
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
    void a_task_that_ends_while_the_server_is_away_keeps_running_and_a_later_run_delivers_its_result()
            throws Exception {
        ObjectNode a = Assignments.of(job("outage", List.of(
                run("Build", "echo before; sleep 7; echo after"),
                run("Test", "echo tested"))), "", "main", "abc");
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> task(a) != null && task(a).outputText().contains("before"));

        harness.api.down = true;
        Optional<TaskOutcome> outcome = running.get(60, TimeUnit.SECONDS);

        assertThat(outcome).as("the task ran to its end").contains(TaskOutcome.SUCCESS);
        assertThat(task(a).status()).as("not delivered yet").isNull();
        assertThat(kept()).hasSize(2); // the record and the output
        assertThat(work).isDirectoryNotContaining(p -> p.getFileName().toString().startsWith("job-"));

        harness.api.down = false;
        try (CompletionSpool restarted = new CompletionSpool(work, CompletionSpool.DEFAULT_WINDOW)) {
            restarted.start(harness.server);
            await().atMost(Duration.ofSeconds(20)).until(() -> task(a).status() != null);
        }

        assertThat(task(a).status()).isEqualTo("success");
        assertThat(task(a).outputText()).containsSubsequence("==> Build\n", "before\n", "after\n", "==> Test\n",
                "tested\n");
        assertThat(task(a).lastReports().get(0).path("status").asText()).isEqualTo("success");
        assertThat(task(a).lastReports().get(1).path("status").asText()).isEqualTo("success");
        assertThat(kept()).as("forgotten once delivered").isEmpty();
    }

    @Test
    void output_written_while_the_server_was_away_goes_through_output_calls_before_the_completion() throws Exception {
        ObjectNode a = Assignments.of(job("chatty", List.of(
                run("Chat", "echo start; sleep 1; head -c 300000 /dev/zero | tr -c x a; echo; echo end"))),
                "", "main", "abc");
        CompletableFuture<Optional<TaskOutcome>> running = harness.start(a);
        await().atMost(Duration.ofSeconds(20)).until(() -> task(a) != null && task(a).outputText().contains("start"));

        harness.api.down = true;
        assertThat(running.get(60, TimeUnit.SECONDS)).contains(TaskOutcome.SUCCESS);
        harness.api.down = false;
        try (CompletionSpool restarted = new CompletionSpool(work, CompletionSpool.DEFAULT_WINDOW)) {
            restarted.start(harness.server);
            await().atMost(Duration.ofSeconds(20)).until(() -> task(a).status() != null);
        }

        String out = task(a).outputText();
        assertThat(out).contains("==> Chat\nstart\n").endsWith("\nend\n");
        assertThat(out).contains("\n" + "a".repeat(300_000) + "\n");
        assertThat(task(a).outputCalls.get()).as("more than a completion carries").isPositive();
    }

    private FakeTask task(ObjectNode assignment) {
        return harness.api.task(Assignments.jobId(assignment));
    }

    private List<Path> kept() throws Exception {
        try (var files = Files.list(work.resolve(CompletionSpool.DIRECTORY))) {
            return files.toList();
        }
    }
}
