package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Concurrency and rate limits per queue, and the ramp after a resume, on a hand-driven clock. */
class LimitsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    private static final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private Queues queues;

    @AfterEach
    void stop() {
        queues.close();
    }

    @BeforeEach
    void start() {
        queues = Queues.start(pg.dataSource(), QueueSettings.defaults().withClock(clock));
        pg.truncate("gantry_queue.message", "gantry_queue.queue");
        Jdbi.create(pg.dataSource()).useTransaction(h -> {
            List<NewMessage> backlog = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                backlog.add(NewMessage.to("limited"));
            }
            queues.enqueueAll(h, backlog);
        });
        clock.advance(Duration.ofSeconds(1)); // past the config cache of the previous test
    }

    @Test
    void a_concurrency_limit_caps_the_messages_held_at_once() {
        queues.limit("limited", new QueueLimits(5, null));
        List<Message> first = queues.claim("limited", "a", 4);
        List<Message> second = queues.claim("limited", "b", 4);
        assertThat(first).hasSize(4);
        assertThat(second).hasSize(1);
        assertThat(queues.claim("limited", "c", 4)).isEmpty();
        queues.complete(first.get(0));
        queues.complete(first.get(1));
        assertThat(queues.claim("limited", "c", 4)).hasSize(2);
    }

    @Test
    void a_rate_limit_spreads_claims_over_time() {
        queues.limit("limited", new QueueLimits(null, 10.0));
        assertThat(queues.claim("limited", "a", 50)).hasSize(10);
        assertThat(queues.claim("limited", "a", 50)).isEmpty();
        clock.advance(Duration.ofMillis(500));
        assertThat(queues.claim("limited", "a", 50)).hasSize(5);
    }

    @Test
    void after_a_resume_the_limits_ramp_up_from_a_fraction() {
        queues.limit("limited", new QueueLimits(100, null));
        queues.pause("limited");
        assertThat(queues.claim("limited", "a", 100)).isEmpty();
        queues.resume("limited", new Ramp(0.1, Duration.ofMinutes(10)));
        assertThat(queues.claim("limited", "a", 100)).as("10% of 100 at the start").hasSize(10);
        clock.advance(Duration.ofMinutes(5));
        assertThat(queues.claim("limited", "a", 100)).as("55% of 100 half way, 10 already held").hasSize(45);
        clock.advance(Duration.ofMinutes(5));
        assertThat(queues.claim("limited", "a", 100)).as("full at the end").hasSize(45);
    }

    @Test
    void a_ramp_without_limits_is_refused_with_the_reason() {
        queues.limit("limited", QueueLimits.NONE);
        assertThatThrownBy(() -> queues.resume("limited", new Ramp(0.2, Duration.ofMinutes(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no limits");
    }
}
