package dev.gantry.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class BulkheadTest {
    @Test
    void a_destination_gets_at_most_its_share_and_the_others_keep_the_rest() {
        Bulkhead bulkhead = Bulkhead.withShare(20, 0.1);

        assertThat(bulkhead.tryAcquire("failing")).isTrue();
        assertThat(bulkhead.tryAcquire("failing")).isTrue();
        assertThat(bulkhead.tryAcquire("failing")).as("10 % of 20").isFalse();
        assertThat(bulkhead.tryAcquire("healthy")).isTrue();
        bulkhead.release("failing");
        assertThat(bulkhead.tryAcquire("failing")).isTrue();
        assertThat(bulkhead.inUse()).isEqualTo(3);
    }

    @Test
    void the_pool_is_never_oversubscribed() {
        Bulkhead bulkhead = new Bulkhead(2, 2);
        bulkhead.tryAcquire("a");
        bulkhead.tryAcquire("b");

        assertThat(bulkhead.tryAcquire("c")).isFalse();
    }

    @Property
    void no_destination_ever_holds_more_than_its_limit_nor_the_pool_more_than_its_size(
            @ForAll @IntRange(min = 1, max = 50) int pool, @ForAll @IntRange(min = 1, max = 50) int limit,
            @ForAll long seed) {
        Bulkhead bulkhead = new Bulkhead(pool, Math.min(limit, pool));
        Random random = new Random(seed);
        List<String> held = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String destination = "d" + random.nextInt(4);
            if (random.nextInt(3) > 0 && bulkhead.tryAcquire(destination)) {
                held.add(destination);
            } else if (!held.isEmpty()) {
                bulkhead.release(held.remove(random.nextInt(held.size())));
            }
            for (int d = 0; d < 4; d++) {
                assertThat(bulkhead.inUse("d" + d)).isLessThanOrEqualTo(bulkhead.perDestination());
            }
            assertThat(bulkhead.inUse()).isLessThanOrEqualTo(pool).isEqualTo(held.size());
        }
    }
}
