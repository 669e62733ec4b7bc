package dev.gantry.scheduler.fleet;

import static dev.gantry.scheduler.fleet.Fleets.T16;
import static dev.gantry.scheduler.fleet.Fleets.T8;
import static dev.gantry.scheduler.fleet.Fleets.XLARGE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.gantry.scheduler.Assignment;
import dev.gantry.scheduler.Instance;
import dev.gantry.scheduler.InstanceState;
import dev.gantry.scheduler.OrgLimits;
import dev.gantry.scheduler.PendingJob;
import dev.gantry.scheduler.Placement;
import dev.gantry.scheduler.RunningJob;
import dev.gantry.scheduler.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The controller and the simulated provider on a virtual clock, driven the way the server and the simulator drive
 * them: every 10 seconds, jobs that are done leave, placement runs on the controller's overlay, then the controller
 * ticks. A burst of eight xlarge jobs meets a cluster whose first type runs out after two instances.
 */
class FleetControllerTest {
    private static final Duration STEP = Duration.ofSeconds(10);
    private static final Duration JOB_LENGTH = Duration.ofMinutes(10);

    /** A clock the test moves by hand. */
    private static final class VirtualClock implements InstantSource {
        Instant now = Fleets.T0;

        @Override
        public Instant instant() {
            return now;
        }
    }

    /** The world outside the controller: jobs waiting and running, and instances the provider says are up. */
    private static final class World {
        final VirtualClock clock = new VirtualClock();
        final SimulatedProvider provider = new SimulatedProvider(clock, 42, Duration.ofSeconds(60),
                Duration.ofSeconds(120), 0.0);
        final FleetConfig config = Fleets.config(Fleets.cluster("east", 1, 6, T16, T8));
        final FleetController controller = new FleetController(config, provider, new SplittableRandom(42));
        final List<PendingJob> pending = new ArrayList<>();
        final Map<String, List<RunningJob>> running = new HashMap<>();
        final Map<String, Instant> started = new LinkedHashMap<>();
        final List<FleetEvent> events = new ArrayList<>();
        /** Instances that run but are not in the snapshot: their agents cannot reach the server. */
        final Set<String> unseen = new HashSet<>();

        World() {
            this(8, 2);
        }

        World(int burst, int t16Capacity) {
            provider.setCapacity("east", "t16", t16Capacity);
            for (int i = 0; i < burst; i++) {
                pending.add(new PendingJob("job-" + i, XLARGE, "org", clock.now));
            }
        }

        void runFor(Duration duration) {
            Instant end = clock.now.plus(duration);
            while (clock.now.isBefore(end)) {
                step();
                clock.now = clock.now.plus(STEP);
            }
        }

        void step() {
            Instant now = clock.now;
            running.values().forEach(jobs -> jobs.removeIf(j -> !j.expectedEnd().orElseThrow().isAfter(now)));
            for (Assignment a : Placement.place(controller.overlay(observed())).assignments()) {
                PendingJob job = pending.stream().filter(j -> j.id().equals(a.jobId())).findFirst().orElseThrow();
                pending.remove(job);
                running.computeIfAbsent(a.instanceId(), k -> new ArrayList<>())
                        .add(new RunningJob(job.id(), job.demand(), job.organization(), Optional.of(now.plus(JOB_LENGTH))));
                started.put(job.id(), now);
            }
            events.addAll(controller.tick(observed()));
        }

        Snapshot observed() {
            List<Instance> up = provider.readyBy(clock.now).stream()
                    .filter(m -> !unseen.contains(m.id()))
                    .map(m -> new Instance(m.id(), m.type(), "default", InstanceState.READY,
                            running.getOrDefault(m.id(), List.of()), Optional.empty()))
                    .toList();
            return new Snapshot(pending, up, OrgLimits.NONE, clock.now);
        }

        List<String> trace() {
            return events.stream().map(FleetEvent::toString).toList();
        }
    }

    @Test
    void a_burst_scales_up_falls_back_when_the_first_type_runs_out_and_scales_back_in_to_the_minimum() {
        World world = new World();

        world.step();
        List<FleetEvent> first = List.copyOf(world.events);
        assertThat(first).extracting(FleetEvent::kind, FleetEvent::type).containsExactly(
                tuple(FleetEvent.Kind.LAUNCHED, "t16"),   // the minimum
                tuple(FleetEvent.Kind.LAUNCHED, "t16"),   // demand
                tuple(FleetEvent.Kind.INSUFFICIENT_CAPACITY, "t16"),
                tuple(FleetEvent.Kind.LAUNCHED, "t8"),    // fell back at once
                tuple(FleetEvent.Kind.LAUNCHED, "t8"),
                tuple(FleetEvent.Kind.LAUNCHED, "t8"),
                tuple(FleetEvent.Kind.LAUNCHED, "t8"));
        assertThat(first.get(3).message()).contains("fell back: t16 in east is short until");

        world.runFor(Duration.ofMinutes(40));

        // Every job started within the provisioning time (p95 two minutes), none waited for a second round.
        assertThat(world.started).hasSize(8);
        assertThat(world.started.values()).allMatch(t -> t.isBefore(Fleets.T0.plus(Duration.ofMinutes(4))));
        // Back to the minimum of one, through draining, with the provider agreeing.
        assertThat(world.controller.instances()).hasSize(1).containsValue(InstanceState.READY);
        assertThat(world.provider.machines()).hasSize(1);
        assertThat(world.events).filteredOn(e -> e.kind() == FleetEvent.Kind.DRAINING).hasSize(5);
        assertThat(world.events).filteredOn(e -> e.kind() == FleetEvent.Kind.TERMINATED).hasSize(5);
        assertThat(world.events).filteredOn(e -> e.kind() == FleetEvent.Kind.LAUNCHED).hasSize(6);
    }

    @Test
    void the_same_seed_gives_the_same_run() {
        World once = new World();
        once.runFor(Duration.ofMinutes(40));
        World again = new World();
        again.runFor(Duration.ofMinutes(40));

        assertThat(again.trace()).isEqualTo(once.trace());
        assertThat(again.started).isEqualTo(once.started);
    }

    @Test
    void a_type_that_ran_out_is_re_probed_after_its_rest_and_used_again_once_it_is_back() {
        World world = new World(0, 0);
        world.step();
        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::type).containsExactly(
                tuple(FleetEvent.Kind.INSUFFICIENT_CAPACITY, "t16"),
                tuple(FleetEvent.Kind.LAUNCHED, "t8"));
        world.provider.setCapacity("east", "t16", 10);
        world.clock.now = world.clock.now.plus(Duration.ofMinutes(5)); // past 3 minutes ± 20 %
        for (int i = 0; i < 4; i++) {
            world.pending.add(new PendingJob("late-" + i, Fleets.CLASSES.get("2xlarge"), "org", world.clock.now));
        }
        world.events.clear();

        world.step();

        // Only a t16 holds a 2xlarge, one at a time: one instance probes the type first ...
        assertThat(world.events).filteredOn(e -> e.kind() != FleetEvent.Kind.READY).extracting(FleetEvent::kind, FleetEvent::type).containsExactly(
                tuple(FleetEvent.Kind.LAUNCHED, "t16"));
        assertThat(world.controller.availability().state("east", "t16", world.clock.now))
                .isEqualTo(TypeAvailability.State.AVAILABLE);
        world.events.clear();
        world.clock.now = world.clock.now.plus(STEP);

        world.step();

        // ... and once it succeeded the type is used as before: three more for the other three jobs.
        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::type).containsExactly(
                tuple(FleetEvent.Kind.LAUNCHED, "t16"), tuple(FleetEvent.Kind.LAUNCHED, "t16"),
                tuple(FleetEvent.Kind.LAUNCHED, "t16"));
    }
    @Test
    void overlay_adds_instances_still_provisioning_and_marks_the_ones_being_drained() {
        World world = new World(0, 2);
        world.step();
        Instance starting = world.controller.overlay(world.observed()).instances().getFirst();
        assertThat(starting.state()).isEqualTo(InstanceState.PROVISIONING);
        assertThat(starting.readyAt()).contains(Fleets.T0.plusSeconds(60)); // the provider's median

        world.pending.add(new PendingJob("job-1", XLARGE, "org", world.clock.now));
        world.pending.add(new PendingJob("job-2", Fleets.CLASSES.get("2xlarge"), "org", world.clock.now));
        while (world.events.stream().noneMatch(e -> e.kind() == FleetEvent.Kind.DRAINING)) {
            world.clock.now = world.clock.now.plus(STEP);
            world.step();
        }
        FleetEvent draining = world.events.getLast();
        assertThat(draining.kind()).isEqualTo(FleetEvent.Kind.DRAINING);
        assertThat(world.controller.overlay(world.observed()).instances())
                .filteredOn(i -> i.id().equals(draining.instanceId()))
                .extracting(Instance::state).containsExactly(InstanceState.DRAINING);
    }

    @Test
    void a_ready_instance_that_vanishes_is_kept_as_it_was_and_replaced_once_silent_past_the_deadline() {
        World world = new World(0, 2);
        world.runFor(Duration.ofMinutes(3));
        assertThat(world.controller.instances()).containsEntry("east-1", InstanceState.READY);
        world.events.clear();

        world.provider.terminate("east-1"); // the machine died under us
        world.step();

        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::instanceId)
                .containsExactly(tuple(FleetEvent.Kind.MISSING, "east-1"));
        assertThat(world.controller.overlay(world.observed()).instances())
                .extracting(Instance::id, Instance::state)
                .as("counted as if starting again: no job is placed on it, and nothing is launched in its place")
                .containsExactly(tuple("east-1", InstanceState.PROVISIONING));

        world.clock.now = world.clock.now.plus(STEP);
        world.runFor(FleetConfig.DEFAULT_LOST_AFTER.minus(STEP));
        assertThat(world.events).extracting(FleetEvent::kind).containsExactly(FleetEvent.Kind.MISSING);

        world.step(); // the deadline: two minutes after the tick that noticed

        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::instanceId).containsExactly(
                tuple(FleetEvent.Kind.MISSING, "east-1"), tuple(FleetEvent.Kind.LOST, "east-1"),
                tuple(FleetEvent.Kind.LAUNCHED, "east-2"));
    }

    @Test
    void an_instance_missing_for_less_than_the_deadline_is_kept() {
        World world = new World(0, 2);
        world.runFor(Duration.ofMinutes(3));
        world.events.clear();

        world.unseen.add("east-1"); // its agent cannot reach the server for a while
        world.runFor(Duration.ofSeconds(90));
        world.unseen.clear();
        world.step();

        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::instanceId).containsExactly(
                tuple(FleetEvent.Kind.MISSING, "east-1"), tuple(FleetEvent.Kind.READY, "east-1"));
        assertThat(world.provider.machines()).extracting(SimulatedProvider.Machine::id).containsExactly("east-1");
    }

    @Test
    void after_an_outage_in_which_no_tick_ran_instances_that_come_back_are_kept() {
        World world = new World(0, 2);
        world.runFor(Duration.ofMinutes(3));
        world.events.clear();

        // The database is down for ten minutes: no tick runs, no agent is seen. When it is back, the first snapshot
        // has none of them, though they run (and east-1 was launched longer ago than the provision timeout).
        world.clock.now = world.clock.now.plus(Duration.ofMinutes(10));
        world.unseen.add("east-1");
        world.step();
        world.clock.now = world.clock.now.plus(Duration.ofSeconds(30)); // agents back off before they call again
        world.unseen.clear();
        world.step();

        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::instanceId).containsExactly(
                tuple(FleetEvent.Kind.MISSING, "east-1"), tuple(FleetEvent.Kind.READY, "east-1"));
        assertThat(world.controller.instances()).containsExactly(Map.entry("east-1", InstanceState.READY));
    }

    @Test
    void silence_noticed_before_an_outage_is_counted_again_from_the_first_tick_after_it() {
        World world = new World(0, 2);
        world.runFor(Duration.ofMinutes(3));
        world.events.clear();
        world.unseen.add("east-1");
        world.step();

        world.clock.now = world.clock.now.plus(Duration.ofMinutes(3)); // no tick: longer than the deadline
        world.step();
        assertThat(world.events).extracting(FleetEvent::kind).containsExactly(FleetEvent.Kind.MISSING);

        // Still nothing from it two minutes after the first tick that could see again: now it is lost.
        world.clock.now = world.clock.now.plus(STEP);
        world.runFor(FleetConfig.DEFAULT_LOST_AFTER);
        assertThat(world.events).extracting(FleetEvent::kind, FleetEvent::instanceId).containsExactly(
                tuple(FleetEvent.Kind.MISSING, "east-1"), tuple(FleetEvent.Kind.LOST, "east-1"),
                tuple(FleetEvent.Kind.LAUNCHED, "east-2"));
    }

    @Test
    void what_a_previous_server_left_running_is_terminated_and_its_ids_are_not_given_again() {
        List<String> terminated = new ArrayList<>();
        List<String> launched = new ArrayList<>();
        FleetProvider survivors = new FleetProvider() {
            @Override
            public LaunchResult launch(String cluster, dev.gantry.scheduler.InstanceType type, String instanceId) {
                launched.add(instanceId);
                return new LaunchResult.Launched(Optional.empty());
            }

            @Override
            public void terminate(String instanceId) {
                terminated.add(instanceId);
            }

            @Override
            public List<LeftBehind> leftBehind() {
                return List.of(new LeftBehind("east-1", "east", "t16"), new LeftBehind("east-4", "east", "t8"));
            }
        };
        FleetController controller = new FleetController(Fleets.config(Fleets.cluster("east", 2, 4, T16, T8)),
                survivors, new SplittableRandom(1));
        controller.namesInUse(List.of("east-6", "laptop", "west-9")); // a live agent took east-6 by hand

        List<FleetEvent> first = controller.tick(new Snapshot(List.of(), List.of(), OrgLimits.NONE, Fleets.T0));
        controller.tick(new Snapshot(List.of(), List.of(), OrgLimits.NONE, Fleets.T0.plusSeconds(10)));

        assertThat(first).extracting(FleetEvent::kind, FleetEvent::instanceId).startsWith(
                tuple(FleetEvent.Kind.TERMINATED, "east-1"), tuple(FleetEvent.Kind.TERMINATED, "east-4"));
        assertThat(terminated).as("asked once, on the first tick").containsExactly("east-1", "east-4");
        assertThat(launched).containsExactly("east-7", "east-8");
    }

    @Test
    void a_failing_launch_rests_its_type_so_a_broken_provider_is_asked_once_per_period_not_every_tick() {
        List<String> asked = new ArrayList<>();
        FleetProvider broken = new FleetProvider() {
            @Override
            public LaunchResult launch(String cluster, dev.gantry.scheduler.InstanceType type, String instanceId) {
                asked.add(type.name());
                return new LaunchResult.Failed("API says 500");
            }

            @Override
            public void terminate(String instanceId) {
            }
        };
        FleetConfig config = Fleets.config(Fleets.cluster("east", 1, 4, T16, T8));
        FleetController controller = new FleetController(config, broken, new SplittableRandom(1));

        List<FleetEvent> first = controller.tick(new Snapshot(List.of(), List.of(), OrgLimits.NONE, Fleets.T0));
        assertThat(first).extracting(FleetEvent::kind, FleetEvent::type).containsExactly(
                tuple(FleetEvent.Kind.LAUNCH_FAILED, "t16"), tuple(FleetEvent.Kind.LAUNCH_FAILED, "t8"));
        for (int s = 10; s < 120; s += 10) {
            controller.tick(new Snapshot(List.of(), List.of(), OrgLimits.NONE, Fleets.T0.plusSeconds(s)));
        }
        assertThat(asked).containsExactly("t16", "t8");

        controller.tick(new Snapshot(List.of(), List.of(), OrgLimits.NONE, Fleets.T0.plus(Duration.ofMinutes(4))));
        assertThat(asked).hasSize(4); // each type re-probed once after its rest
    }
}
