package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code gantry server} on its embedded PostgreSQL, whose postmaster an operator kills with SIGKILL while a workflow
 * runs. The server starts the database again by itself; until then the API answers 503 with {@code Retry-After}, and
 * within 10 s of the database being able to start a trigger succeeds again, and every pipeline, those accepted before
 * the kill too, runs to success with each job run once.
 *
 * <p>To hold the outage open long enough to look at it, the test stops (SIGSTOP) the killed server's checkpointer
 * first: still attached to the old shared memory, it keeps a new server from starting, as a slow-dying child of a real
 * crash does, until the test lets it go (SIGCONT) and it exits, having seen its postmaster die.
 */
class EmbeddedDatabaseCrashIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROJECT = "gantry/local/chain";
    private static final Duration OUTAGE = Duration.ofSeconds(4);
    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(10);

    /** Kept when the test fails: the server's log is in {@code gantry/logs}, PostgreSQL's in {@code gantry/postgres.log}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;
    @TempDir
    Path repository;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void a_postmaster_killed_with_sigkill_is_started_again_by_the_server_and_nothing_accepted_is_lost()
            throws Exception {
        Path trace = Files.createFile(home.resolve("trace.log"));
        TestRepository.create(repository, "/e2e/slow-chain.yml", trace);
        Path gantryHome = home.resolve("gantry");
        try (GantryProcesses gantry = new GantryProcesses(gantryHome, null, Map.of())) {
            gantry.startServer();
            assertThat(gantry.admin().post("/api/v2/project", Map.of("name", "chain", "repo_url",
                    repository.toString())).status()).isEqualTo(201);
            PipelineProbe probe = new PipelineProbe(gantry::admin, PROJECT);
            gantry.startAgent("steady", 4);
            String running = probe.trigger();
            probe.awaitJobs(probe.awaitWorkflow(running, null, "running"), Map.of("first", "running"));
            String accepted = probe.trigger();

            ProcessHandle postmaster = postmaster(gantryHome.resolve("postgres"));
            ProcessHandle checkpointer = postmaster.descendants().filter(p -> commandLine(p).contains("checkpointer"))
                    .findFirst().orElseThrow();
            signal("STOP", checkpointer);
            postmaster.destroyForcibly();
            awaitGone(postmaster);

            List<Answer> duringOutage = new ArrayList<>();
            long outageEnds = System.nanoTime() + OUTAGE.toNanos();
            while (System.nanoTime() < outageEnds) {
                duringOutage.add(send(gantry, "GET", "/api/v2/project/" + PROJECT, null));
                duringOutage.add(send(gantry, "POST", "/api/v2/project/" + PROJECT + "/pipeline", "during-outage"));
            }
            signal("CONT", checkpointer);
            long startable = System.nanoTime();
            List<Answer> refusedWhileRecovering = new ArrayList<>();
            Answer trigger = send(gantry, "POST", "/api/v2/project/" + PROJECT + "/pipeline", "after-restart");
            while (trigger.status() == 503 && System.nanoTime() - startable < 2 * RECOVERY_LIMIT.toNanos()) {
                refusedWhileRecovering.add(trigger);
                Thread.sleep(100); // a client that honours Retry-After waits longer; this measures the recovery
                trigger = send(gantry, "POST", "/api/v2/project/" + PROJECT + "/pipeline", "after-restart");
            }
            Duration recovery = Duration.ofNanos(System.nanoTime() - startable);
            System.out.printf("Triggered again %d ms after the database could start, %d refusals meanwhile%n",
                    recovery.toMillis(), refusedWhileRecovering.size());

            assertThat(duringOutage).as("while the database is down").isNotEmpty().allSatisfy(answer -> {
                assertThat(answer.status()).as(answer.body()).isEqualTo(503);
                assertThat(answer.retryAfter()).isEqualTo("5");
            });
            assertThat(refusedWhileRecovering).allSatisfy(answer -> assertThat(answer.retryAfter()).isNotNull());
            assertThat(trigger.status()).as(trigger.body()).isEqualTo(201);
            assertThat(recovery).isLessThan(RECOVERY_LIMIT);
            String afterRestart = JSON.readTree(trigger.body()).path("id").asText();

            for (String pipeline : List.of(running, accepted, afterRestart)) {
                JsonNode done = probe.awaitWorkflow(pipeline, null, "success", "failed", "canceled");
                assertThat(done.path("status").asText()).as("pipeline %s", pipeline).isEqualTo("success");
                assertThat(probe.allJobs(done)).as("no job was retried").hasSize(3);
            }
            assertThat(probe.get("/api/v2/project/" + PROJECT + "/pipeline").path("items"))
                    .as("the refused triggers made none").hasSize(3);
            assertThat(new JobTrace(trace).runsByJobNumber()).hasSize(9).allSatisfy((job, lines) ->
                    assertThat(lines).as("job %d ran once, start to end", job).containsExactly("start", "end"));
            assertThat(postmaster(gantryHome.resolve("postgres")).pid()).isNotEqualTo(postmaster.pid());
            assertThat(Files.readString(gantry.log("server-1"), StandardCharsets.UTF_8))
                    .contains("Restarted the embedded PostgreSQL in " + gantryHome.resolve("postgres"));
        }
    }

    /** One answer with what this test looks at, which {@link dev.gantry.cli.client.GantryClient} does not keep. */
    private record Answer(int status, String retryAfter, String body) {
    }

    /** A GET, or a trigger on main under {@code idempotencyKey}. */
    private Answer send(GantryProcesses gantry, String method, String path, String idempotencyKey) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gantry.url() + path))
                .timeout(Duration.ofSeconds(30)).header("Circle-Token", Files.readString(gantry.adminTokenFile()).strip());
        if (idempotencyKey == null) {
            request.GET();
        } else {
            request.header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"branch\": \"main\"}"));
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null),
                response.body());
    }

    private static ProcessHandle postmaster(Path data) throws IOException {
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
        return ProcessHandle.of(pid).orElseThrow();
    }

    /** Waits until {@code process} is dead or a zombie (its parent may not reap it). */
    private static void awaitGone(ProcessHandle process) throws InterruptedException {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        for (int i = 0; i < 100; i++) {
            try {
                String line = Files.readString(stat);
                if (!process.isAlive() || line.substring(line.lastIndexOf(')') + 1).strip().startsWith("Z")) {
                    return;
                }
            } catch (IOException gone) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("PID " + process.pid() + " still runs after SIGKILL");
    }

    /** The process title PostgreSQL sets, e.g. "postgres: checkpointer". */
    private static String commandLine(ProcessHandle process) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"));
        } catch (IOException gone) {
            return "";
        }
    }

    private static void signal(String signal, ProcessHandle process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %d", signal, process.pid()).isZero();
    }
}
