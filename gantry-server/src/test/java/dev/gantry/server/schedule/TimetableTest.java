package dev.gantry.server.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimetableTest {

    private static Timetable of(String json) throws Exception {
        return Timetable.from(Json.MAPPER.readTree(json));
    }

    @Test
    void circleci_s_timetable_becomes_a_cron_expression() throws Exception {
        assertThat(of("{\"per-hour\": 1, \"hours-of-day\": [3], \"days-of-week\": [\"MON\", \"FRI\"]}").cron())
                .isEqualTo("0 3 * * 1,5");
        assertThat(of("{\"per-hour\": 4, \"hours-of-day\": [9, 1], \"days-of-month\": [1, 15], "
                + "\"months\": [\"DEC\", \"JAN\"]}").cron()).isEqualTo("0,15,30,45 1,9 1,15 1,12 *");
        assertThat(of("{\"cron\": \"*/10 * * * *\"}").cron()).isEqualTo("*/10 * * * *");
    }

    @Test
    void slots_step_through_the_timetable_in_utc() throws Exception {
        Timetable nightly = of("{\"per-hour\": 1, \"hours-of-day\": [3], \"days-of-week\": [\"MON\", \"TUE\", \"WED\", "
                + "\"THU\", \"FRI\", \"SAT\", \"SUN\"]}");

        assertThat(nightly.next(Instant.parse("2026-12-04T03:00:00Z"))).isEqualTo("2026-12-05T03:00:00Z");
        assertThat(nightly.slots(Instant.parse("2026-12-01T12:00:00Z"), Instant.parse("2026-12-04T03:00:00Z"), 10))
                .containsExactly(Instant.parse("2026-12-02T03:00:00Z"), Instant.parse("2026-12-03T03:00:00Z"),
                        Instant.parse("2026-12-04T03:00:00Z"));
        assertThat(nightly.slots(Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-12-04T03:00:00Z"), 5))
                .hasSize(5);
    }

    @Test
    void bad_timetables_are_refused_naming_the_field() {
        for (var bad : List.of(
                List.of("{\"hours-of-day\": [3], \"days-of-week\": [\"MON\"]}", "timetable.per-hour"),
                List.of("{\"per-hour\": 61, \"hours-of-day\": [3], \"days-of-week\": [\"MON\"]}", "timetable.per-hour"),
                List.of("{\"per-hour\": 1, \"hours-of-day\": [24], \"days-of-week\": [\"MON\"]}",
                        "timetable.hours-of-day"),
                List.of("{\"per-hour\": 1, \"hours-of-day\": [3], \"days-of-week\": [\"MONDAY\"]}",
                        "timetable.days-of-week"),
                List.of("{\"per-hour\": 1, \"hours-of-day\": [3]}", "timetable.days-of-week"),
                List.of("{\"cron\": \"61 * * * *\"}", "timetable.cron"),
                List.of("{\"cron\": \"0 3 * * *\", \"per-hour\": 1}", "timetable.cron"),
                List.of("{\"every\": \"day\"}", "timetable.every"))) {
            assertThatThrownBy(() -> of(bad.get(0))).as(bad.get(0)).isInstanceOf(ApiException.class)
                    .satisfies(e -> assertThat(((ApiException) e).field()).contains(bad.get(1)));
        }
    }
}
