package dev.gantry.server.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.http.ApiException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class InsightsParametersTest {
    static final Instant NOW = Instant.parse("2026-12-06T10:00:00Z");

    @Test
    void a_reporting_window_is_one_of_circlecis_and_the_last_90_days_by_default() {
        assertThat(InsightsParameters.ReportingWindow.parse(null).length).isEqualTo(Duration.ofDays(90));
        assertThat(InsightsParameters.ReportingWindow.parse("last-24-hours").length).isEqualTo(Duration.ofHours(24));
        assertThat(InsightsParameters.ReportingWindow.parse("last-60-days").length).isEqualTo(Duration.ofDays(60));
        assertThatThrownBy(() -> InsightsParameters.ReportingWindow.parse("last-3-days"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(400);
                    assertThat(e.field()).contains("reporting-window");
                    assertThat(e.getMessage()).contains("last-7-days").contains("'last-3-days'");
                });
    }

    @Test
    void a_branch_all_branches_or_else_the_default_branch() {
        assertThat(InsightsParameters.branch("feature", null, () -> "main")).isEqualTo("feature");
        assertThat(InsightsParameters.branch(null, "true", () -> "main")).isNull();
        assertThat(InsightsParameters.branch(null, "false", () -> "main")).isEqualTo("main");
        assertThat(InsightsParameters.branch(null, null, () -> null)).as("default not known yet: every branch")
                .isNull();
        assertThatThrownBy(() -> InsightsParameters.branch("feature", "true", () -> "main"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).contains("all-branches"));
        assertThatThrownBy(() -> InsightsParameters.branch(null, "yes", () -> "main"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).contains("all-branches"));
    }

    @Test
    void dates_need_a_start_for_an_end_and_span_at_most_90_days() {
        assertThat(InsightsParameters.dates(null, null, NOW)).containsExactly(NOW.minus(Duration.ofDays(90)), NOW);
        assertThat(InsightsParameters.dates("2026-12-01", null, NOW))
                .containsExactly(Instant.parse("2026-12-01T00:00:00Z"), NOW);
        assertThat(InsightsParameters.dates("2026-11-01T10:00:00+01:00", "2026-11-02T00:00:00Z", NOW))
                .containsExactly(Instant.parse("2026-11-01T09:00:00Z"), Instant.parse("2026-11-02T00:00:00Z"));
        for (List<String> bad : List.of(List.of("", "2026-12-01T00:00:00Z"), List.of("2026-12-02", "2026-12-01"),
                List.of("2026-01-01", "2026-06-01"))) {
            String start = bad.get(0).isEmpty() ? null : bad.get(0);
            assertThatThrownBy(() -> InsightsParameters.dates(start, bad.get(1), NOW))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).contains("end-date"));
        }
        assertThatThrownBy(() -> InsightsParameters.dates("yesterday", null, NOW))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).contains("start-date"));
    }
}
