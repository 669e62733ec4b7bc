package dev.gantry.agent.task;

import static dev.gantry.agent.testing.Assignments.job;
import static dev.gantry.agent.testing.Assignments.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.protocol.TaskOutcome;
import dev.gantry.agent.testing.Assignments;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckoutIT {
    @TempDir
    Path work;
    @TempDir
    Path repo;
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
    void checkout_clones_the_repository_at_the_pipeline_revision_on_its_branch() throws Exception {
        firstCommit();
        String first = git("rev-parse", "HEAD");
        Files.writeString(repo.resolve("file.txt"), "v2\n");
        git("commit", "-q", "-am", "second");
        ObjectNode a = Assignments.of(job("checkout", List.of(
                new Step.Checkout("Checkout code", null, Step.When.ON_SUCCESS),
                run("Look", "cat file.txt; git rev-parse HEAD; git rev-parse --abbrev-ref HEAD; "
                        + "test \"$PWD\" = \"$CIRCLE_WORKING_DIRECTORY\" && echo in-working-dir"))),
                repo.toString(), "feature/x", first);

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        String out = harness.api.task(Assignments.jobId(a)).outputText();
        assertThat(out).containsSubsequence("==> Checkout code", "$ git clone", "==> Look", "v1\n", first + "\n",
                "feature/x\n", "in-working-dir\n");
    }

    /** Through file://, as from a real server: a local path would copy every object, reachable or not. */
    @Test
    void checkout_fetches_by_id_a_revision_no_branch_reaches_any_more() throws Exception {
        firstCommit();
        Files.writeString(repo.resolve("file.txt"), "pushed, then force-pushed away\n");
        git("commit", "-q", "-am", "second");
        String gone = git("rev-parse", "HEAD");
        git("reset", "-q", "--hard", "HEAD~1");
        Files.writeString(repo.resolve("file.txt"), "v3\n");
        git("commit", "-q", "-am", "third");
        ObjectNode a = Assignments.of(job("checkout", List.of(
                new Step.Checkout("Checkout code", null, Step.When.ON_SUCCESS),
                run("Look", "cat file.txt"))), repo.toUri().toString(), "main", gone);

        assertThat(harness.run(a)).contains(TaskOutcome.SUCCESS);

        assertThat(harness.api.task(Assignments.jobId(a)).outputText()).containsSubsequence("$ git clone",
                "No branch of the clone has " + gone + "; fetching it by its id.", "$ git fetch --force origin " + gone,
                "HEAD is now at", "==> Look", "pushed, then force-pushed away\n");
    }

    @Test
    void checkout_of_a_revision_the_repository_lacks_fails_the_step() throws Exception {
        firstCommit();
        ObjectNode a = Assignments.of(job("checkout", List.of(
                new Step.Checkout("Checkout code", "src", Step.When.ON_SUCCESS))),
                repo.toString(), null, "0123456789012345678901234567890123456789");

        assertThat(harness.run(a)).contains(TaskOutcome.FAILED);
        assertThat(harness.api.task(Assignments.jobId(a)).lastReports().get(0).path("status").asText())
                .isEqualTo("failed");
    }

    /** A repository on branch main whose one commit has file.txt saying v1. */
    private void firstCommit() throws IOException, InterruptedException {
        git("init", "-q", "-b", "main");
        Files.writeString(repo.resolve("file.txt"), "v1\n");
        git("add", "file.txt");
        git("commit", "-q", "-m", "first");
    }

    private String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=Test", "-c", "user.email=t@example.com",
                "-c", "commit.gpgsign=false"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as("git " + String.join(" ", args) + ": " + out).isZero();
        return out;
    }
}
