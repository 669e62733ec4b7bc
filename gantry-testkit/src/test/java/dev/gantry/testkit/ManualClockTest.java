package dev.gantry.testkit;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ManualClockTest {
    private static final Instant NOON = Instant.parse("2030-06-01T12:00:00Z");

    @Test
    void time_stands_still_until_the_test_moves_it() {
        ManualClock clock = new ManualClock(NOON);

        assertThat(clock.instant()).isEqualTo(NOON);
        assertThat(clock.instant()).isEqualTo(NOON);
        assertThat(clock.millis()).isEqualTo(NOON.toEpochMilli());
    }

    @Test
    void a_clock_made_without_a_start_begins_at_the_default_start() {
        assertThat(new ManualClock().instant()).isEqualTo(ManualClock.DEFAULT_START);
    }

    @Test
    void advance_moves_forward_and_returns_the_new_time() {
        ManualClock clock = new ManualClock(NOON);

        assertThat(clock.advance(Duration.ofSeconds(90))).isEqualTo(NOON.plusSeconds(90));
        assertThat(clock.advance(Duration.ZERO)).isEqualTo(NOON.plusSeconds(90));
        assertThat(clock.instant()).isEqualTo(NOON.plusSeconds(90));
    }

    @Test
    void advance_refuses_to_go_backwards() {
        ManualClock clock = new ManualClock(NOON);

        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(clock.instant()).isEqualTo(NOON);
    }

    @Test
    void set_moves_the_time_either_way() {
        ManualClock clock = new ManualClock(NOON);

        clock.set(NOON.minusSeconds(3600));
        assertThat(clock.instant()).isEqualTo(NOON.minusSeconds(3600));
        clock.set(NOON.plusSeconds(3600));
        assertThat(clock.instant()).isEqualTo(NOON.plusSeconds(3600));
    }

    @Test
    void a_clock_with_a_zone_follows_the_manual_time() {
        ManualClock source = new ManualClock(NOON);
        Clock clock = source.withZone(ZoneId.of("Pacific/Chatham"));

        source.advance(Duration.ofMinutes(5));

        assertThat(clock.instant()).isEqualTo(NOON.plusSeconds(300));
        assertThat(clock.getZone()).isEqualTo(ZoneId.of("Pacific/Chatham"));
    }

    @Test
    void advances_from_many_threads_all_count() throws Exception {
        ManualClock clock = new ManualClock(NOON);
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int thread = 0; thread < 8; thread++) {
                done.add(threads.submit(() -> {
                    for (int step = 0; step < 1000; step++) {
                        clock.advance(Duration.ofMillis(1));
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(clock.instant()).isEqualTo(NOON.plusSeconds(8));
    }
}
