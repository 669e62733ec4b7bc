package dev.gantry.server.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.pipeline.GitRef;
import dev.gantry.server.project.RepositoryPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GitMirrors} on a real repository, through a {@code git} that logs each fetch and holds it, once it has
 * fetched, until the test opens a gate: so a test can push while a fetch is in flight.
 */
class GitMirrorsIT {
    @TempDir
    Path work;

    Path repo;
    Path fetchLog;
    Path gate;
    GitMirrors mirrors;
    final UUID project = UUID.randomUUID();

    @BeforeEach
    void setUp() throws Exception {
        repo = Files.createDirectories(work.resolve("app"));
        git("init", "-q", "-b", "main");
        fetchLog = work.resolve("fetches.log");
        gate = work.resolve("gate");
        Path heldGit = work.resolve("held-git");
        Files.writeString(heldGit, """
                #!/bin/sh
                if [ "$2" = fetch ]; then
                  git "$@"; status=$?
                  echo fetch >> '%s'
                  while [ ! -e '%s' ]; do sleep 0.01; done
                  exit $status
                fi
                exec git "$@"
                """.formatted(fetchLog, gate));
        Files.setPosixFilePermissions(heldGit, PosixFilePermissions.fromString("rwx------"));
        mirrors = new GitMirrors(work.resolve("mirrors"), heldGit.toString(), Duration.ofSeconds(30),
                InstantSource.system(), RepositoryPolicy.ANYTHING);
    }

    @Test
    void plans_triggered_before_a_fetch_share_it_and_one_triggered_after_it_started_sees_a_later_push()
            throws Exception {
        String first = commit("first");
        mirrors.fetch(project, repo.toString(), GitRef.branch("main"), null, Instant.now()); // the clone
        Instant beforeFetch = Instant.now();

        try (ExecutorService threads = Executors.newCachedThreadPool()) {
            Future<String> fetching = threads.submit(() -> planAt(beforeFetch));
            await().until(() -> fetches() == 1);
            String pushed = commit("pushed while the fetch was in flight");
            Instant afterFetchStarted = Instant.now();
            List<Future<String>> early = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                early.add(threads.submit(() -> planAt(beforeFetch)));
            }
            Future<String> later = threads.submit(() -> planAt(afterFetchStarted));
            Thread.sleep(100);
            Files.createFile(gate);

            assertThat(fetching.get()).isEqualTo(first);
            for (Future<String> plan : early) {
                assertThat(plan.get()).as("served by the fetch in flight").isEqualTo(first);
            }
            assertThat(later.get()).as("fetched again, after the first fetch").isEqualTo(pushed);
        }
        assertThat(fetches()).isEqualTo(2);
    }

    @Test
    void a_plan_triggered_before_the_last_fetch_started_needs_no_fetch() throws Exception {
        Files.createFile(gate);
        commit("first");
        mirrors.fetch(project, repo.toString(), GitRef.branch("main"), null, Instant.now());
        Instant triggered = Instant.now();
        String second = commit("second");

        assertThat(planAt(triggered)).isEqualTo(second);
        assertThat(planAt(triggered)).as("the fetch above started after the trigger").isEqualTo(second);

        assertThat(fetches()).isEqualTo(1);
    }

    @Test
    void an_annotated_tag_and_an_abbreviated_upper_case_revision_resolve_to_their_commits() throws Exception {
        Files.createFile(gate);
        String tagged = commit("tagged");
        git("tag", "-a", "-m", "release", "v1");
        commit("later");

        assertThat(mirrors.fetch(project, repo.toString(), GitRef.tag("v1"), null, Instant.now()).revision())
                .isEqualTo(tagged);
        assertThat(mirrors.fetch(project, repo.toString(), GitRef.branch("main"), tagged.substring(0, 7)
                .toUpperCase(), Instant.now()).revision()).isEqualTo(tagged);
    }

    @Test
    void a_config_that_is_a_symlink_or_a_directory_is_refused_naming_its_mode() throws Exception {
        Files.createFile(gate);
        Files.createDirectories(repo.resolve(".gantry/config.yml"));
        Files.writeString(repo.resolve(".gantry/config.yml/inside"), "x\n");
        String directory = commit("a directory where the gantry config would be");
        git("rm", "-rq", ".gantry");
        Files.move(repo.resolve(".circleci/config.yml"), repo.resolve(".circleci/real.yml"));
        Files.createSymbolicLink(repo.resolve(".circleci/config.yml"), Path.of("real.yml"));
        git("add", "-A");
        git("commit", "-q", "-m", "a symlink where the circleci config would be");

        assertThatThrownBy(() -> mirrors.fetch(project, repo.toString(), GitRef.branch("main"), directory,
                Instant.now())).isInstanceOf(ConfigFetchException.class)
                .hasMessage(".gantry/config.yml at commit " + directory + " is not a regular file (mode 040000)");
        assertThatThrownBy(() -> planAt(Instant.now())).isInstanceOf(ConfigFetchException.class)
                .hasMessageEndingWith("is not a regular file (mode 120000)");
    }

    private String planAt(Instant triggered) throws Exception {
        return mirrors.fetch(project, repo.toString(), GitRef.branch("main"), null, triggered).revision();
    }

    private long fetches() throws IOException {
        return Files.exists(fetchLog) ? Files.readAllLines(fetchLog).size() : 0;
    }

    private String commit(String message) throws Exception {
        Files.createDirectories(repo.resolve(".circleci"));
        Files.writeString(repo.resolve(".circleci/config.yml"), "# " + message + "\nversion: 2.1\n");
        git("add", "-A");
        git("commit", "-q", "-m", message);
        return git("rev-parse", "HEAD").strip();
    }

    private String git(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=test", "-c", "user.email=t@localhost"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(output).isZero();
        return output;
    }
}
