package dev.gantry.server.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.queue.QueueSettings;
import dev.gantry.queue.Queues;
import dev.gantry.server.ServerSchema;
import dev.gantry.server.http.Json;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scheduled pipelines fire exactly once per slot: with a hand-moved clock, against a real database, with two
 * "servers" (two {@link Schedules} on one database) firing at once, after a crash between a slot's pipeline and the
 * schedule's move, and after an outage with catch-up on and off.
 */
class SchedulesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);

    static final ProjectSlug APP = new ProjectSlug("acme", "app");
    static final Instant START = Instant.parse("2026-12-04T02:30:00Z");

    static Queues queues;
    static Jdbi jdbi;
    ManualClock clock;
    Schedules schedules;

    @BeforeAll
    static void start() {
        ServerSchema.migrate(pg.dataSource());
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults(), new SimpleMeterRegistry());
        jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
    }

    @AfterAll
    static void stop() {
        queues.close();
    }

    @BeforeEach
    void project() {
        pg.truncate("gantry.project", "gantry_queue.message");
        jdbi.useHandle(h -> h.execute("INSERT INTO gantry.project (id, organization, name, vcs_url, created_at) "
                + "VALUES (?, 'acme', 'app', 'https://example.com/acme/app.git', now())", UUID.randomUUID()));
        clock = new ManualClock(START);
        schedules = server(clock);
    }

    private static Schedules server(ManualClock clock) {
        return new Schedules(jdbi, new PipelineTriggers(jdbi, queues, clock), clock);
    }

    private Schedule hourly(boolean catchUp) throws Exception {
        return schedules.create(APP, new Schedules.Fields("hourly", "", Timetable.from(Json.MAPPER.readTree(
                "{\"cron\": \"0 * * * *\"}")), Schedules.checkedParameters(Json.MAPPER.readTree(
                "{\"branch\": \"main\", \"deploy\": true}")), "admin", catchUp));
    }

    private List<String> pipelines() {
        return jdbi.withHandle(h -> h.createQuery("SELECT branch || ' ' || parameters::text || ' ' || trigger_type "
                + "FROM gantry.pipeline ORDER BY number").mapTo(String.class).list());
    }

    @Test
    void a_slot_fires_once_when_due_with_the_schedule_s_branch_parameters_and_trigger_type() throws Exception {
        Schedule schedule = hourly(false);
        assertThat(schedule.nextRunAt()).isEqualTo("2026-12-04T03:00:00Z");

        assertThat(schedules.fireDue()).as("not due yet").isZero();
        clock.set(Instant.parse("2026-12-04T03:00:02Z"));
        assertThat(schedules.fireDue()).isOne();
        assertThat(schedules.fireDue()).as("the slot has fired").isZero();

        assertThat(pipelines()).containsExactly("main {\"deploy\": true} scheduled_pipeline");
        assertThat(schedules.find(schedule.id()).orElseThrow().nextRunAt()).isEqualTo("2026-12-04T04:00:00Z");
    }

    @Test
    void two_servers_firing_at_once_start_one_pipeline_per_slot() throws Exception {
        hourly(false);
        clock.set(Instant.parse("2026-12-04T03:00:01Z"));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Integer>> servers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Schedules server = server(clock);
                servers.add(server::fireDue);
            }
            int fired = 0;
            for (Future<Integer> f : pool.invokeAll(servers)) {
                fired += f.get();
            }
            assertThat(fired).isOne();
        } finally {
            pool.shutdownNow();
        }
        assertThat(pipelines()).hasSize(1);
    }

    @Test
    void a_crash_after_the_pipeline_but_before_the_schedule_moved_on_finds_the_pipeline_again() throws Exception {
        Schedule schedule = hourly(false);
        clock.set(Instant.parse("2026-12-04T03:00:01Z"));
        schedules.fireDue();
        // As if the server died before committing the schedule's move: the slot is due again.
        jdbi.useHandle(h -> h.execute("UPDATE gantry.schedule SET last_slot = NULL, next_run_at = ? WHERE id = ?",
                java.time.OffsetDateTime.parse("2026-12-04T03:00:00Z"), schedule.id()));

        assertThat(schedules.fireDue()).isOne();

        assertThat(pipelines()).as("the same pipeline, found by its idempotency key").hasSize(1);
    }

    @Test
    void after_an_outage_missed_slots_are_skipped_unless_the_schedule_catches_up() throws Exception {
        hourly(false);
        schedules.create(APP, new Schedules.Fields("catching-up", "", Timetable.from(Json.MAPPER.readTree(
                "{\"cron\": \"30 * * * *\"}")), Schedules.checkedParameters(Json.MAPPER.readTree(
                "{\"branch\": \"release\"}")), "system", true));

        clock.set(Instant.parse("2026-12-04T06:01:00Z")); // no server ran from 02:30 to 06:01
        schedules.fireDue();

        assertThat(pipelines()).as("06:00 of the hourly one; 03:30, 04:30 and 05:30 of the one catching up")
                .containsExactly("main {\"deploy\": true} scheduled_pipeline", "release {} scheduled_pipeline",
                        "release {} scheduled_pipeline", "release {} scheduled_pipeline");
        clock.advance(Duration.ofHours(1));
        schedules.fireDue();
        assertThat(pipelines()).as("06:30 and 07:00").hasSize(6);
    }
}
