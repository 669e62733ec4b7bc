package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.GantryServer;
import dev.gantry.server.ServerSettings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gantry usage}, run as a process against a real server: a task that ended while its organization's charging
 * was off is charged by {@code usage backfill}, a budget it already exceeds records its alert, and the report prints
 * as a table and as CSV.
 */
class UsageCommandIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    Path home;

    GantryServer server;

    private record Run(int code, String out, String err) {
    }

    @BeforeEach
    void start() {
        server = GantryServer.start(new ServerSettings(0), pg.dataSource(), home);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void a_backfilled_task_shows_in_the_table_the_csv_and_the_budget() throws Exception {
        Run off = gantry("usage", "charging", "acme", "off");
        endedTask("acme", 90);
        String today = LocalDate.now(ZoneOffset.UTC).toString();

        Run backfill = gantry("usage", "backfill", "--org", "acme", "--from", today, "--to", today);
        Run again = gantry("usage", "backfill", "--from", today, "--to", today);
        Run budget = gantry("usage", "budget", "acme", "25");
        Run table = gantry("usage", "--org", "acme");
        Run csv = gantry("usage", "--csv", "--group-by", "org,resource_class");

        assertThat(off.out()).isEqualTo("charging of acme is off\n");
        assertThat(backfill.code()).as(backfill.err()).isZero();
        assertThat(backfill.out()).isEqualTo("charged 1 of 1 uncharged tasks that ended from " + today + " to " + today
                + "\n");
        assertThat(again.out()).startsWith("charged 0 of 0 ");
        assertThat(budget.out()).isEqualTo("acme: a monthly budget of 25 credits\n");
        assertThat(table.code()).as(table.err()).isZero();
        assertThat(table.out()).containsPattern("ORG +PROJECT +RESOURCE CLASS +DAY +TASKS +MINUTES +CREDITS +SECONDS")
                .containsPattern("acme +app +medium +" + today + " +1 +2 +20 +90\\.0")
                .containsPattern("total +1 +2 +20 +90\\.0")
                .contains("acme " + today.substring(0, 7) + ": 20 credits of a budget of 25")
                .contains("budget alert: acme " + today.substring(0, 7) + " reached 80 % of 25 credits (20)")
                .contains("sent to no one (no Slack or e-mail destination asks for budget alerts)");
        assertThat(csv.out()).isEqualTo("org,resource_class,tasks,seconds,minutes,credits\r\n"
                + "acme,medium,1,90.000,2,20\r\n");
        assertThat(gantry("usage", "budget", "acme", "lots").code()).isEqualTo(2);
        assertThat(gantry("usage", "charging", "acme", "maybe").code()).isEqualTo(2);
    }

    /** A task of a medium job of {@code organization}/app that ran {@code seconds} on an agent and just ended. */
    private void endedTask(String organization, int seconds) {
        UUID project = UUID.randomUUID();
        UUID pipeline = UUID.randomUUID();
        UUID workflow = UUID.randomUUID();
        UUID job = UUID.randomUUID();
        Jdbi.create(pg.dataSource()).useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.project (id, organization, name, vcs_url, created_at)
                    VALUES (?, ?, 'app', 'https://github.com/acme/app.git', now())""", project, organization);
            h.execute("""
                    INSERT INTO gantry.pipeline (id, project_id, number, state, branch, parameters, request_hash,
                                                 created_at, updated_at)
                    VALUES (?, ?, 1, 'created', 'main', '{}', '\\x00', now(), now())""", pipeline, project);
            h.execute("""
                    INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at, stopped_at)
                    VALUES (?, ?, 'build', 'success', now(), now())""", workflow, pipeline);
            h.execute("""
                    INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires,
                                            resource_class, cpu, memory_mb, parallelism, spec, created_at)
                    VALUES (?, ?, ?, 1, 'test', 'build', 'success', '{}', 'medium', 2, 4096, 1, '{}', now())""",
                    job, workflow, project);
            h.execute("""
                    INSERT INTO gantry.job_task (job_id, node_index, status, queued_at, started_at, accepted_at,
                                                 stopped_at)
                    VALUES (?, 0, 'success', now(), date_trunc('milliseconds', now()) - make_interval(secs => ?),
                            now(), date_trunc('milliseconds', now()))""", job, seconds);
        });
    }

    private Run gantry(String... arguments) throws IOException, InterruptedException {
        List<String> command = GantryProcesses.command(List.of(arguments));
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("GANTRY_HOME", home.toString());
        builder.environment().put(ServerOptions.URL_VARIABLE, server.url().toString());
        builder.environment().remove(ServerOptions.TOKEN_VARIABLE);
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("gantry " + String.join(" ", arguments) + " did not exit within 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
