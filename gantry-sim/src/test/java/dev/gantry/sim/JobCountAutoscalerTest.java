package dev.gantry.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Snapshot;
import dev.gantry.scheduler.fleet.FleetConfig;
import dev.gantry.scheduler.fleet.SimulatedProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class JobCountAutoscalerTest {
    private static final FleetConfig FLEET = FleetConfig.parse("fleet.yml", """
            scale_in_after: 5m
            clusters:
              - name: east
                min: 1
                max: 10
                types:
                  - {name: t16, vcpu: 16, memory_gb: 32, disk_gb: 160}
                  - {name: t32, vcpu: 32, memory_gb: 64, disk_gb: 320}
            """);

    private final VirtualClock clock = new VirtualClock();
    private final SimulatedProvider provider = new SimulatedProvider(clock, 1, Duration.ofSeconds(60),
            Duration.ofSeconds(60), 0);
    private final JobCountAutoscaler autoscaler = new JobCountAutoscaler(FLEET, provider, 4);

    @Test
    void wants_one_instance_per_n_jobs_whatever_their_size_of_the_first_type_only() {
        List<String> events = autoscaler.tick(snapshot(pending(9, "2xlarge"), List.of()));

        assertThat(events).hasSize(3).allMatch(e -> e.startsWith("LAUNCHED east t16"));
        assertThat(provider.machines()).extracting(m -> m.type().name()).containsOnly("t16");
    }

    @Test
    void does_not_fall_back_when_the_first_type_is_short() {
        provider.setCapacity("east", "t16", 1);

        List<String> events = autoscaler.tick(snapshot(pending(8, "small"), List.of()));

        assertThat(events).containsExactly("LAUNCHED east t16 east-b1",
                "INSUFFICIENT_CAPACITY east t16: east has no t16 left (limit 1)");
        assertThat(provider.machines()).hasSize(1);
    }

    @Test
    void terminates_idle_instances_past_the_cool_down_down_to_the_minimum() {
        autoscaler.tick(snapshot(pending(12, "small"), List.of()));
        clock.set(clock.instant().plus(Duration.ofMinutes(2)));
        List<Instance> up = ready();
        autoscaler.tick(snapshot(List.of(), up)); // idle from now
        clock.set(clock.instant().plus(Duration.ofMinutes(4)));
        assertThat(autoscaler.tick(snapshot(List.of(), up))).isEmpty();

        clock.set(clock.instant().plus(Duration.ofMinutes(1)));
        List<String> events = autoscaler.tick(snapshot(List.of(), up));

        assertThat(events).hasSize(2).allMatch(e -> e.startsWith("TERMINATED east"));
        assertThat(provider.machines()).hasSize(1);
    }

    private List<Instance> ready() {
        List<Instance> out = new ArrayList<>();
        provider.readyBy(clock.instant()).forEach(m -> out.add(Instance.ready(m.id(), m.type(), List.of())));
        return out;
    }

    private Snapshot snapshot(List<PendingJob> pending, List<Instance> instances) {
        return new Snapshot(pending, instances, OrgLimits.NONE, clock.instant());
    }

    private List<PendingJob> pending(int n, String resourceClass) {
        Instant now = clock.instant();
        return IntStream.range(0, n).mapToObj(i -> new PendingJob("j" + i, FifoFirstFitTest.CLASSES.get(resourceClass),
                "org", now)).toList();
    }

}
