package dev.gantry.server.usage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.ResourceClass;
import dev.gantry.scheduler.ResourceClasses;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class UsageRuleProperties {
    @Property
    void a_charge_covers_the_run_with_less_than_a_minute_to_spare(@ForAll @LongRange(max = 10L * 24 * 3600_000) long runMs,
                                                                   @ForAll @IntRange(max = 1000) int price) {
        ResourceClasses classes = ResourceClasses.of(List.of(new ResourceClass("c", 1, 1024, 10, price)));
        Instant start = Instant.parse("2026-05-01T00:00:00Z");
        Charge c = UsageRule.charge(new TaskRecord(UUID.randomUUID(), 0, 1, "o", UUID.randomUUID(), "p", "j", "a",
                "c", null, "success", start, start, start.plusMillis(runMs), null), classes).orElseThrow();

        assertThat(c.minutes() * UsageRule.MINUTE_MS).isGreaterThanOrEqualTo(runMs);
        assertThat((c.minutes() - 1) * UsageRule.MINUTE_MS).isLessThan(Math.max(1, runMs));
        assertThat(c.credits()).isEqualTo(c.minutes() * price);
    }

    @Property
    void each_threshold_is_crossed_by_exactly_one_charge_of_a_month(@ForAll @LongRange(min = 1, max = 1_000_000) long budget,
                                                                    @ForAll List<@IntRange(max = 5000) Integer> charges) {
        long total = 0;
        int crossings = 0;
        for (int credits : charges) {
            crossings += BudgetThresholds.crossed(budget, total, total + credits).size();
            total += credits;
        }
        assertThat(crossings).isEqualTo(BudgetThresholds.reached(budget, total).size());
    }
}
