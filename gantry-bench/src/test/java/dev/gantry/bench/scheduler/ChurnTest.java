package dev.gantry.bench.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChurnTest {
    private static final ChurnConfig SMALL = new ChurnConfig(200, 0.75, 900, 300, 2, Duration.ofSeconds(1), 11L);

    @Test
    void the_same_seed_gives_the_same_placements_and_packing() {
        ChurnFigures a = new Churn(SMALL).run(quiet());
        ChurnFigures b = new Churn(SMALL).run(quiet());

        assertThat(a.placements()).isEqualTo(b.placements()).isPositive();
        assertThat(a.waits()).isEqualTo(b.waits());
        assertThat(a.meanRatio()).isEqualTo(b.meanRatio());
        assertThat(a.snapshots()).isEqualTo(b.snapshots());
    }

    @Test
    void instances_in_use_are_never_fewer_than_the_lower_bound() {
        ChurnFigures f = new Churn(SMALL).run(quiet());

        assertThat(f.rounds()).isEqualTo(300);
        assertThat(f.decisionNanos().getTotalCount()).isEqualTo(300);
        assertThat(f.meanRatio()).isGreaterThanOrEqualTo(1.0);
        assertThat(f.snapshots()).hasSize(2).allSatisfy(s -> {
            assertThat(s.ourInstances()).isGreaterThanOrEqualTo(s.lowerBound());
            int vcpu = s.demands().stream().mapToInt(d -> d.vcpu()).sum();
            assertThat(s.lowerBound()).isEqualTo((vcpu + ChurnConfig.VCPU - 1) / ChurnConfig.VCPU);
        });
    }

    private static PrintStream quiet() {
        return new PrintStream(OutputStream.nullOutputStream());
    }
}
