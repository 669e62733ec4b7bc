package dev.gantry.bench.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SolverPackingTest {
    private static final Resources C16 = Churn.TYPE.capacity();

    private static Resources vcpu(int n) {
        return new Resources(n, n * 2048, n * 10);
    }

    @Test
    void first_fit_decreasing_puts_the_largest_jobs_first_and_fills_the_lowest_bin_with_room() {
        List<PackedJob> jobs = List.of(new PackedJob(0, 4, 4 * 2048, 40), new PackedJob(1, 16, 16 * 2048, 160),
                new PackedJob(2, 8, 8 * 2048, 80), new PackedJob(3, 4, 4 * 2048, 40), new PackedJob(4, 1, 2048, 10));

        int[] bins = SolverPacking.firstFitDecreasing(jobs, C16);

        assertThat(bins).containsExactly(1, 0, 1, 1, 2);
    }

    @Test
    void timefold_packs_a_small_snapshot_feasibly_onto_no_more_than_the_start() {
        List<Resources> demands = new ArrayList<>();
        int[] sizes = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 1, 1, 4, 8};
        for (int s : sizes) {
            demands.add(vcpu(s));
        }
        int total = Arrays.stream(sizes).sum();
        // As if placement had spread them over one instance each.
        PackingSnapshot snapshot = new PackingSnapshot(1, demands, sizes.length, (total + 15) / 16);

        SolverPacking.Result r = SolverPacking.solve(snapshot, C16, Duration.ofSeconds(2));

        assertThat(r.feasible()).isTrue();
        assertThat(r.instances()).isLessThanOrEqualTo(r.startInstances()).isGreaterThanOrEqualTo(snapshot.lowerBound());
        assertThat(r.description()).startsWith("Timefold 2.");
    }
}
