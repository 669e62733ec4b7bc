package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.db.Database;
import dev.gantry.db.DatabaseSettings;
import dev.gantry.queue.MessageState;
import dev.gantry.queue.NewMessage;
import dev.gantry.queue.QueueLimits;
import dev.gantry.queue.Queues;
import dev.gantry.queue.Ramp;
import dev.gantry.queue.QueueSettings;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The {@code gantry queue} commands, run as processes against a real database. */
class QueueCommandsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    Path home;

    private record Run(int code, String out, String err) {
    }

    @Test
    void dead_messages_are_listed_with_their_reasons_and_replayed_by_id() throws Exception {
        long first;
        long second;
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            first = queues.enqueue(NewMessage.to("hooks").maxAttempts(1)).id();
            second = queues.enqueue(NewMessage.to("hooks").maxAttempts(1)).id();
            queues.fail(queues.claim("hooks", "w", 1).get(0), "webhook answered 410", false);
            queues.fail(queues.claim("hooks", "w", 1).get(0), "IOException: connect timed out\n\tat a.B.c(B.java:1)",
                    false);
        }

        Run dead = gantry("queue", "dead", "hooks");
        assertThat(dead.code()).as(dead.err()).isZero();
        List<String> lines = dead.out().lines().toList();
        assertThat(lines.get(0)).startsWith("ID").contains("ATTEMPTS", "DIED AT", "REASON");
        assertThat(lines.subList(1, lines.size())).hasSize(2).anySatisfy(line -> assertThat(line)
                .startsWith(Long.toString(first)).endsWith("webhook answered 410"))
                .anySatisfy(line -> assertThat(line).startsWith(Long.toString(second))
                        .endsWith("IOException: connect timed out …"));

        Run replay = gantry("queue", "replay", Long.toString(first), "99999999");
        assertThat(replay.code()).as("one id is not a dead message").isEqualTo(1);
        assertThat(replay.out()).isEqualTo("replayed " + first + "\n");
        assertThat(replay.err()).contains("99999999 is not a dead message");
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            assertThat(queues.state(first)).contains(MessageState.READY);
        }
        assertThat(gantry("queue", "dead", "hooks", "--limit", "5").out().lines().skip(1))
                .singleElement().asString().startsWith(Long.toString(second));

        assertThat(gantry("queue", "dead", "quiet").out()).isEqualTo("(no dead messages in quiet)\n");
        Run bad = gantry("queue", "dead", "No/Such");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("gantry queue dead: a queue name is");
        Run none = gantry("queue", "dead", "hooks", "--limit", "0");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).contains("gantry queue dead: the limit must be at least 1, got 0");
    }

    @Test
    void a_queue_is_paused_limited_and_resumed_with_a_ramp_from_the_shell() throws Exception {
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            for (int i = 0; i < 10; i++) {
                queues.enqueue(NewMessage.to("mail"));
            }
        }
        assertThat(gantry("queue", "pause", "mail").out()).isEqualTo("mail: paused\n");
        Run noLimits = gantry("queue", "resume", "mail", "--ramp-from", "0.25", "--ramp-over", "10m");
        assertThat(noLimits.code()).isEqualTo(2);
        assertThat(noLimits.err()).contains("gantry queue resume: queue 'mail' has no limits for a ramp to scale");
        assertThat(gantry("queue", "limit", "mail", "--max-running", "4").out())
                .isEqualTo("mail: paused, at most 4 running\n");
        Run badDuration = gantry("queue", "resume", "mail", "--ramp-from", "0.25", "--ramp-over", "ten");
        assertThat(badDuration.code()).isEqualTo(2);
        assertThat(badDuration.err()).contains("a duration is a whole number with s, m or h");
        assertThat(gantry("queue", "resume", "mail", "--ramp-from", "0.25").err())
                .contains("--ramp-from and --ramp-over go together");

        Run resumed = gantry("queue", "resume", "mail", "--ramp-from", "0.25", "--ramp-over", "10m");
        assertThat(resumed.code()).as(resumed.err()).isZero();
        assertThat(resumed.out()).matches("mail: at most 4 running, ramping up from 25 % of its limits since "
                + "\\S+Z, full at \\S+Z\n");
        try (Queues queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            assertThat(queues.claim("mail", "w", 10)).as("a quarter of 4 running at first").hasSize(1);
        }
        assertThat(gantry("queue", "limit", "mail").out()).isEqualTo("mail: runs unpaused and unlimited\n");
    }

    @Test
    void beside_a_running_gantry_they_use_the_embedded_server_it_runs() throws Exception {
        Path upHome = home.resolve("up");
        try (Database up = Database.start(DatabaseSettings.builder().home(upHome).build());
             Queues queues = Queues.start(up.getDataSource(), QueueSettings.defaults(), new SimpleMeterRegistry())) {
            queues.enqueue(NewMessage.to("builds"));
            long dead = queues.enqueue(NewMessage.to("hooks").maxAttempts(1)).id();
            queues.fail(queues.claim("hooks", "w", 1).get(0), "webhook answered 410", false);
            queues.limit("builds", new QueueLimits(4, 2.5));
            queues.pause("builds");
            queues.limit("hooks", new QueueLimits(2, null));
            queues.resume("hooks", new Ramp(0.25, Duration.ofMinutes(10)));

            Run stats = gantry(upHome, null, "queue", "stats");
            assertThat(stats.code()).as(stats.err()).isZero();
            assertThat(stats.out()).containsPattern("(?m)^builds +1 +0 +0 ")
                    .containsPattern("(?m)^hooks +0 +0 +1 ").contains("database: WAL")
                    .contains("builds: paused, at most 4 running, at most 2.5 claims/s\n")
                    .containsPattern("hooks: at most 2 running, ramping up from 25 % of its limits since .*Z, "
                            + "full at .*Z\n");
            Run listed = gantry(upHome, null, "queue", "dead", "hooks");
            assertThat(listed.out()).contains(dead + " ").contains("webhook answered 410");
            Run replay = gantry(upHome, null, "queue", "replay", Long.toString(dead));
            assertThat(replay.out()).isEqualTo("replayed " + dead + "\n");

            assertThat(queues.state(dead)).as("the server's database is still up").contains(MessageState.READY);
        }
    }

    private Run gantry(String... arguments) throws IOException, InterruptedException {
        return gantry(home, pg.jdbcUrl(), arguments);
    }

    /** Runs {@code gantry ARGUMENTS} with {@code GANTRY_HOME}, and {@code GANTRY_DATABASE_URL} unless it is null. */
    private Run gantry(Path gantryHome, String databaseUrl, String... arguments)
            throws IOException, InterruptedException {
        List<String> command = GantryProcesses.command(List.of(arguments));
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("GANTRY_HOME", gantryHome.toString());
        builder.environment().remove("GANTRY_DATABASE_URL");
        if (databaseUrl != null) {
            builder.environment().put("GANTRY_DATABASE_URL", databaseUrl);
        }
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("gantry " + String.join(" ", arguments) + " did not exit within 60 s");
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
