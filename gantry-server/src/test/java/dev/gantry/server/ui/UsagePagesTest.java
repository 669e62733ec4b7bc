package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.usage.UsageDao;
import dev.gantry.server.usage.UsageReads;
import dev.gantry.server.usage.UsageReport;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the usage page makes of its figures: the budget bar, the chart's days, the alerts' deliveries. */
class UsagePagesTest {

    static UsagePages.OrgMonth month(long credits, Long budget) {
        return new UsagePages.OrgMonth(new UsageDao.Standing("acme", credits, budget, true));
    }

    @Test
    void the_bar_turns_amber_at_the_80_percent_alert_and_red_at_the_budget_and_never_overflows() {
        assertThat(month(79, 100L).level()).isEqualTo("ok");
        assertThat(month(80, 100L).level()).isEqualTo("warn");
        assertThat(month(999, 1000L).percent()).as("just short never reads 100").isEqualTo(99);
        assertThat(month(999, 1000L).level()).isEqualTo("warn");
        assertThat(month(100, 100L).level()).isEqualTo("over");
        assertThat(month(150, 100L).barWidth()).isEqualTo(UsagePages.BAR_WIDTH);
        assertThat(month(50, 100L).barWidth()).isEqualTo(UsagePages.BAR_WIDTH / 2);
        assertThat(month(50, null).percent()).isNull();
        assertThat(month(50, null).barWidth()).isZero();
    }

    @Test
    void every_day_of_the_range_is_on_the_chart_and_a_day_without_charges_is_zero() {
        LocalDate first = LocalDate.parse("2026-12-01");
        UsageReport.Row second = new UsageReport.Row(Map.of("day", "2026-12-02"), 1, 60_000, 1, 10);

        SvgChart chart = UsagePages.creditsPerDay(List.of(second), new UsageReads.Range(first, first.plusDays(2)));

        assertThat(chart.summary()).isEqualTo("Credits per day, 2026-12-01 to 2026-12-03: 3 of 3 with a value, from "
                + "0 to 10, last 0.");
    }

    @Test
    void an_alerts_deliveries_are_counted_by_state_or_said_to_have_gone_to_no_one() {
        Instant at = Instant.parse("2026-12-06T10:00:00Z");
        LocalDate month = LocalDate.parse("2026-12-01");
        assertThat(UsagePages.deliveries(new UsageDao.Alert("acme", month, 80, 50, 40, at, 1, 2, 0)))
                .isEqualTo("2 delivered, 1 pending, 0 dead");
        assertThat(UsagePages.deliveries(new UsageDao.Alert("acme", month, 80, 50, 40, at, 0, 0, 0)))
                .isEqualTo("sent to no one");
        assertThat(UsagePages.month(new UsageDao.Alert("acme", month, 80, 50, 40, at, 0, 0, 0))).isEqualTo("2026-12");
    }
}
