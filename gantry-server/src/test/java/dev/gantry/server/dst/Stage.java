package dev.gantry.server.dst;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * What the actors' steps of one seed run share: the rig, the seed's random, whether faults are on, the world as the
 * last check read it, the trace, and the choice and arming of faults. Single-threaded.
 */
final class Stage {
    final Rig rig;
    final SplittableRandom random;
    /** This run's number in the JVM. */
    final long run;
    final Instant base;
    final List<String> trace = new ArrayList<>();
    private final Consumer<String> echo;
    private final Map<UUID, String> workflowLabels = new HashMap<>();
    boolean faults;
    World world;
    int step;

    Stage(Rig rig, SplittableRandom random, long run, Instant base, Consumer<String> echo) {
        this.rig = rig;
        this.random = random;
        this.run = run;
        this.base = base;
        this.echo = echo;
    }

    /** One fault drawn by weight from {@code weight, fault, weight, fault, …}; none while faults are off. */
    Fault fault(Object... weightsAndFaults) {
        if (!faults) {
            return Fault.NONE;
        }
        int total = 0;
        for (int i = 0; i < weightsAndFaults.length; i += 2) {
            total += (Integer) weightsAndFaults[i];
        }
        int pick = random.nextInt(total);
        for (int i = 0; i < weightsAndFaults.length; i += 2) {
            pick -= (Integer) weightsAndFaults[i];
            if (pick < 0) {
                return (Fault) weightsAndFaults[i + 1];
            }
        }
        throw new IllegalStateException();
    }

    /** Arms a crash at a random statement of the call to come, if the fault is one. */
    void arm(Fault f) {
        if (f == Fault.CRASH || f == Fault.HANDLER_FAILS) {
            rig.faults.arm(1 + random.nextInt(8));
        }
    }

    void crashedOrThrow(RuntimeException e, String what) {
        boolean fired = rig.faults.disarm();
        if (!fired || !Crash.in(e)) {
            throw e;
        }
        log(what + " -> the server crashed mid-call (" + e.getMessage() + "); no answer");
    }

    /** A workflow's stable name in the trace: {@code p<pipeline number>.<name>}, {@code /rerunN} for reruns. */
    String label(UUID workflowId) {
        String known = workflowLabels.get(workflowId);
        if (known != null) {
            return known;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (World.Workflow w : world.workflows()) {
            String name = "p" + w.pipelineNumber() + "." + w.name();
            int n = seen.merge(name, 1, Integer::sum);
            workflowLabels.putIfAbsent(w.id(), n == 1 ? name : name + "/rerun" + (n - 1));
        }
        return workflowLabels.getOrDefault(workflowId, "workflow ?");
    }

    void log(String line) {
        String entry = String.format("%4d %8.3fs %s", step,
                Duration.between(base, rig.clock.instant()).toMillis() / 1000.0, line);
        trace.add(entry);
        if (echo != null) {
            echo.accept(entry);
        }
    }
}
