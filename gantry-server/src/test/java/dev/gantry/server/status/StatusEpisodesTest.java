package dev.gantry.server.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a server remembers of components leaving operational and coming back, before anything is written. */
class StatusEpisodesTest {
    static final Instant T0 = Instant.parse("2026-12-05T21:00:00Z");

    static ComponentStatus row(String id, ComponentState state) {
        return new ComponentStatus(id, id, "group", state, "because " + state.id(), List.of(), null);
    }

    @Test
    void an_episode_starts_when_a_row_leaves_operational_keeps_its_worst_and_ends_when_it_comes_back() {
        Episodes episodes = new Episodes();
        episodes.observe(T0, List.of(row("db", ComponentState.OPERATIONAL)));
        episodes.observe(T0.plusSeconds(10), List.of(row("db", ComponentState.PARTIAL_OUTAGE)));
        episodes.observe(T0.plusSeconds(20), List.of(row("db", ComponentState.MAJOR_OUTAGE)));
        episodes.observe(T0.plusSeconds(30), List.of(row("db", ComponentState.DEGRADED)));
        assertThat(episodes.current("db")).hasValueSatisfying(e -> {
            assertThat(e.start()).isEqualTo(T0.plusSeconds(10));
            assertThat(e.worst()).isEqualTo(ComponentState.MAJOR_OUTAGE);
            assertThat(e.reason()).isEqualTo("because major_outage");
        });

        episodes.observe(T0.plusSeconds(40), List.of(row("db", ComponentState.OPERATIONAL)));

        assertThat(episodes.current()).isEmpty();
        assertThat(episodes.ended()).singleElement().satisfies(e -> {
            assertThat(e.start()).isEqualTo(T0.plusSeconds(10));
            assertThat(e.end()).isEqualTo(T0.plusSeconds(40));
            assertThat(e.worst()).isEqualTo(ComponentState.MAJOR_OUTAGE);
        });
        episodes.forgetEnded();
        assertThat(episodes.ended()).isEmpty();
    }

    @Test
    void unknown_and_no_data_neither_start_nor_end_an_episode_and_a_row_that_goes_away_ends_its_own() {
        Episodes episodes = new Episodes();
        episodes.observe(T0, List.of(row("api", ComponentState.DEGRADED), row("jobs", ComponentState.DEGRADED),
                row("notifications", ComponentState.NO_DATA)));
        episodes.observe(T0.plusSeconds(10), List.of(row("api", ComponentState.UNKNOWN),
                row("jobs", ComponentState.UNKNOWN), row("notifications", ComponentState.NO_DATA)));
        assertThat(episodes.current()).containsOnlyKeys("api", "jobs");

        episodes.observe(T0.plusSeconds(20), List.of(row("api", ComponentState.DEGRADED)));

        assertThat(episodes.current()).containsOnlyKeys("api");
        assertThat(episodes.current("api").orElseThrow().start()).isEqualTo(T0);
        assertThat(episodes.ended()).extracting(Episodes.Episode::component).containsExactly("jobs");
    }
}
