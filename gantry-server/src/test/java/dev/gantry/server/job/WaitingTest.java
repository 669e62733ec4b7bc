package dev.gantry.server.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class WaitingTest {
    private static final Instant QUEUED = Instant.parse("2026-11-30T10:00:00Z");
    private static final Instant NOW = QUEUED.plusSeconds(90);

    @Test
    void with_no_agent_it_says_how_to_start_one() {
        Waiting w = Waiting.of("medium", QUEUED, new JobDao.Agents(0, 0, 0, 0), NOW, "since");
        assertThat(w.reason()).isEqualTo("no_agent");
        assertThat(w.message()).contains("bin/gantry agent");
        assertThat(w.forMs()).isEqualTo(90_000);
    }

    @Test
    void with_only_smaller_agents_it_names_what_the_job_needs_and_what_the_largest_offers() {
        Waiting w = Waiting.of("xlarge", QUEUED, new JobDao.Agents(3, 0, 4, 8192), NOW, "since");
        assertThat(w.reason()).isEqualTo("no_agent_big_enough");
        assertThat(w.message()).isEqualTo("the job needs 8 CPU and 16384 MiB (xlarge); the largest of the 3 "
                + "connected agents offers 4 CPU and 8192 MiB");
    }

    @Test
    void with_agents_big_enough_it_waits_for_one_of_them_to_be_free() {
        Waiting w = Waiting.of("small", QUEUED, new JobDao.Agents(2, 2, 4, 8192), NOW, "since");
        assertThat(w.reason()).isEqualTo("agents_busy");
        assertThat(w.message()).contains("2 agents").contains("1 CPU and 2048 MiB (small)");
    }

    @Test
    void a_clock_behind_the_queue_time_never_gives_a_negative_wait() {
        assertThat(Waiting.of("small", NOW, new JobDao.Agents(0, 0, 0, 0), QUEUED, "since").forMs()).isZero();
    }
}
