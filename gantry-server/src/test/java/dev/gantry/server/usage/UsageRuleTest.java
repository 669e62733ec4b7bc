package dev.gantry.server.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.ResourceClasses;
import java.time.Instant;
import java.time.LocalDate;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UsageRuleTest {
    static final ResourceClasses CLASSES = ResourceClasses.defaults();
    static final Instant START = Instant.parse("2026-03-31T23:59:30Z");

    static TaskRecord task(String status, Instant started, Instant accepted, Instant stopped, Instant givenUp) {
        return new TaskRecord(UUID.randomUUID(), 0, 1, "acme", UUID.randomUUID(), "app", "build", "alice", "medium",
                UUID.randomUUID(), status, started, accepted, stopped, givenUp);
    }

    static Charge charged(long runMs) {
        return UsageRule.charge(task("success", START, START, START.plusMillis(runMs), null), CLASSES).orElseThrow();
    }

    @Test
    void minutes_are_started_minutes_and_at_least_one() {
        assertThat(charged(0).minutes()).isEqualTo(1);
        assertThat(charged(1).minutes()).isEqualTo(1);
        assertThat(charged(60_000).minutes()).isEqualTo(1);
        assertThat(charged(60_001).minutes()).isEqualTo(2);
        assertThat(charged(10 * 60_000 + 500).minutes()).isEqualTo(11);
    }

    @Test
    void credits_are_minutes_times_the_class_price_of_the_fleet_file() {
        Charge c = charged(61_000);
        assertThat(c.creditsPerMinute()).isEqualTo(10); // medium
        assertThat(c.credits()).isEqualTo(20);
        assertThat(c.runMs()).isEqualTo(61_000);
    }

    @Test
    void the_day_is_the_utc_day_the_task_ended() {
        assertThat(charged(20_000).day()).isEqualTo(LocalDate.parse("2026-03-31"));
        assertThat(charged(40_000).day()).isEqualTo(LocalDate.parse("2026-04-01"));
    }

    @Test
    void failed_canceled_and_infrastructure_failed_tasks_are_charged_for_the_time_they_ran() {
        for (String status : new String[] {"failed", "canceled", "infrastructure_fail"}) {
            assertThat(UsageRule.charge(task(status, START, START, START.plusSeconds(90), null), CLASSES))
                    .get().extracting(Charge::minutes).isEqualTo(2L);
        }
    }

    @Test
    void a_task_given_up_by_the_sweeper_is_charged_until_the_give_up_even_after_a_late_result() {
        Instant givenUp = START.plusSeconds(600);
        Charge c = UsageRule.charge(task("success", START, START, givenUp.plusSeconds(3600), givenUp), CLASSES)
                .orElseThrow();
        assertThat(c.endedAt()).isEqualTo(givenUp);
        assertThat(c.minutes()).isEqualTo(10);
    }

    @Test
    void tasks_that_never_ran_on_an_agent_or_have_not_ended_are_not_charged() {
        assertThat(UsageRule.charge(task("canceled", null, null, START, null), CLASSES)).as("canceled while queued")
                .isEmpty();
        assertThat(UsageRule.charge(task("canceled", START, null, START.plusSeconds(30), null), CLASSES))
                .as("withdrawn: its agent never accepted it").isEmpty();
        assertThat(UsageRule.charge(task("running", START, START, null, null), CLASSES)).isEmpty();
        assertThat(UsageRule.charge(task("queued", null, null, null, null), CLASSES)).isEmpty();
    }

    @Test
    void a_class_the_fleet_file_does_not_name_costs_nothing_but_keeps_its_minutes() {
        TaskRecord gpu = new TaskRecord(UUID.randomUUID(), 0, 1, "acme", UUID.randomUUID(), "app", "build", "alice",
                "gpu-large", null, "success", START, START, START.plusSeconds(120), null);
        Charge c = UsageRule.charge(gpu, CLASSES).orElseThrow();
        assertThat(c.minutes()).isEqualTo(2);
        assertThat(c.credits()).isZero();
    }
}
