package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.cli.client.GantryClient;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two server processes on one database; the one that claimed a pipeline's plan message is stopped with SIGSTOP while
 * it plans (its {@code git} waits at a gate the test holds shut). The other server plans the pipeline within seconds,
 * once the stopped server's short queue lease runs out, not after the queue's former 60 s; continued, the stopped
 * server plans nothing a second time.
 */
class StoppedServerQueueIT {
    private static final String PROJECT = "gantry/local/app";
    /** The queue lease (10 s) and a maintenance turn (2 s), with room for a loaded machine. */
    private static final Duration TAKEN_OVER_WITHIN = Duration.ofSeconds(20);

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    /** Kept when the test fails: each server's log is under {@code server-N/logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    final List<GantryProcesses> servers = new ArrayList<>();
    Path gate;

    @AfterEach
    void stop() {
        servers.forEach(GantryProcesses::close);
    }

    @Test
    void a_plan_held_by_a_stopped_server_is_taken_over_by_the_other_within_seconds() throws Exception {
        gate = Files.createDirectories(home.resolve("gate"));
        TestRepository.create(repository, "/e2e/config.yml", home.resolve("trace.log"));
        for (int i = 1; i <= 2; i++) {
            Path serverHome = Files.createDirectories(home.resolve("server-" + i));
            if (i > 1) { // docs/server.md: the first server's token and key files, copied to every other
                for (String file : List.of("admin-token", "agent-token", "master-key")) {
                    Files.copy(home.resolve("server-1").resolve(file), serverHome.resolve(file));
                }
            }
            GantryProcesses server = new GantryProcesses(serverHome, pg.jdbcUrl(), Map.of(
                    "GANTRY_DATABASE_CONNECT_TIMEOUT", "10s", "GANTRY_DATABASE_POOL_SIZE", "5",
                    "PATH", gatedGit("server-" + i) + File.pathSeparator + System.getenv("PATH"),
                    "GATE_SERVER", "server-" + i));
            servers.add(server);
            server.startServer();
        }
        GantryClient api = servers.get(1).admin();
        assertThat(api.post("/api/v2/project", Map.of("name", "app", "repo_url", repository.toString())).status())
                .isEqualTo(201);

        Files.createFile(gate.resolve("armed"));
        String pipeline = new PipelineProbe(() -> api, PROJECT).trigger();
        Path waiting = awaitOneWaiting();
        GantryProcesses holder = servers.get(waiting.getFileName().toString().equals("waiting-server-1") ? 0 : 1);
        GantryClient other = servers.get(1 - servers.indexOf(holder)).admin();
        signal("STOP", holder.server());
        long stopped = System.nanoTime();
        Files.createFile(gate.resolve("open")); // the other server's git runs freely; the stopped one cannot go on

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                .until(() -> other.get("/api/v2/pipeline/" + pipeline).json().path("state").asText()
                        .equals("created"));
        Duration tookOver = Duration.ofNanos(System.nanoTime() - stopped);
        System.out.println("planned by the other server " + tookOver.toMillis() + " ms after the stop");
        assertThat(tookOver).as("planned by the other server").isLessThan(TAKEN_OVER_WITHIN);

        signal("CONT", holder.server());
        Thread.sleep(5_000); // the continued server finds its lease lost and stops that delivery
        assertThat(other.get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items"))
                .as("planned once").hasSize(1);
    }

    /**
     * A directory with a {@code git} that, once the test arms the gate, notes which server called it and waits for the
     * gate to open before running the real git.
     */
    private Path gatedGit(String server) throws Exception {
        String realGit = Stream.of(System.getenv("PATH").split(File.pathSeparator)).map(d -> Path.of(d, "git"))
                .filter(Files::isExecutable).findFirst().orElseThrow().toString();
        Path dir = Files.createDirectories(home.resolve("bin-" + server));
        Path git = Files.writeString(dir.resolve("git"), """
                #!/bin/sh
                if [ -e '%1$s/armed' ] && [ ! -e '%1$s/open' ]; then
                    touch "%1$s/waiting-$GATE_SERVER"
                    while [ ! -e '%1$s/open' ]; do sleep 0.1; done
                fi
                exec '%2$s' "$@"
                """.formatted(gate, realGit));
        Files.setPosixFilePermissions(git, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir;
    }

    /** The note of the one server whose git waits at the gate: the one that claimed the plan message. */
    private Path awaitOneWaiting() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> waitingNotes().size() == 1);
        return waitingNotes().getFirst();
    }

    private List<Path> waitingNotes() throws Exception {
        try (Stream<Path> files = Files.list(gate)) {
            return files.filter(f -> f.getFileName().toString().startsWith("waiting-")).toList();
        }
    }

    private static void signal(String signal, ProcessHandle process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %d", signal, process.pid()).isZero();
    }
}
