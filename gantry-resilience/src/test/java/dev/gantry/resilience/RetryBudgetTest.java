package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {
    @Test
    void a_full_bucket_allows_its_burst_then_one_retry_per_ten_first_attempts() {
        RetryBudget budget = new RetryBudget(0.1, 3);

        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isFalse();
        for (int i = 0; i < 9; i++) {
            budget.recordFirstAttempt();
        }
        assertThat(budget.tryRetry()).as("0.9 tokens").isFalse();
        budget.recordFirstAttempt();
        assertThat(budget.tryRetry()).isTrue();
        assertThat(budget.tryRetry()).isFalse();
    }

    @Property
    void retries_never_exceed_the_ratio_of_first_attempts_plus_the_burst(
            @ForAll @DoubleRange(min = 0, max = 1) double ratio, @ForAll @IntRange(min = 0, max = 20) int burst,
            @ForAll @IntRange(min = 0, max = 5000) int calls, @ForAll long seed) {
        RetryBudget budget = new RetryBudget(ratio, burst);
        Random random = new Random(seed);
        int firsts = 0;
        int retries = 0;
        for (int i = 0; i < calls; i++) {
            if (random.nextBoolean()) {
                budget.recordFirstAttempt();
                firsts++;
            } else if (budget.tryRetry()) {
                retries++;
            }
        }
        assertThat((double) retries).isLessThanOrEqualTo((Math.round(ratio * 1000) / 1000.0) * firsts + burst + 1e-9);
    }
}
