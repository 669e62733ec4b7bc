package dev.gantry.server.dst;

import dev.gantry.queue.Message;
import dev.gantry.server.pipeline.PipelineTriggers;
import dev.gantry.server.usage.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The server's own actors: its queue consumers (plan builder, orchestrator, the ledger's counting), the queue's rescue of expired
 * deliveries, the lease sweeper; and time passing.
 */
final class ServerSteps {
    private final Stage stage;
    private final List<SimAgent> agents;

    ServerSteps(Stage stage, List<SimAgent> agents) {
        this.stage = stage;
        this.agents = agents;
    }

    void deliver(String queue) {
        List<Message> claimed = stage.rig.queues.claim(queue, Rig.WORKER, 1);
        if (claimed.isEmpty()) {
            stage.log("server: nothing due on " + queue);
            return;
        }
        Message m = claimed.getFirst();
        String what = "server: " + describe(m) + " (attempt " + m.attempt() + ")";
        // A message's last deliveries get no faults: five in a row would dead-letter it, which is the queue's
        // design, not a bug to find here.
        Fault f = m.attempt() >= 3 ? Fault.NONE
                : stage.fault(60, Fault.NONE, 12, Fault.CRASH, 8, Fault.HANDLER_FAILS, 10, Fault.LOST_ANSWER, 10,
                Fault.DUPLICATE);
        try {
            stage.arm(f);
            handle(m);
        } catch (RuntimeException e) {
            boolean crashed = stage.rig.faults.disarm() && Crash.in(e);
            if (!crashed) {
                throw e;
            }
            if (f == Fault.HANDLER_FAILS) {
                boolean retried = stage.rig.queues.fail(m, e.toString(), true);
                stage.log(what + " -> the handler failed; the worker recorded it, "
                        + (retried ? "to be retried" : "dead-lettered"));
            } else {
                stage.log(what + " -> the server crashed; the message stays held until its lease runs out");
            }
            return;
        } finally {
            stage.rig.faults.disarm();
        }
        if (f == Fault.DUPLICATE) {
            handle(m);
        }
        if (f == Fault.LOST_ANSWER) {
            stage.log(what + " handled, but its completion was lost: it will be delivered again");
            return;
        }
        stage.rig.queues.complete(m);
        stage.log(what + " handled" + (f == Fault.DUPLICATE ? " twice" : ""));
    }

    private void handle(Message m) {
        if (m.queue().equals(PipelineTriggers.PLAN_QUEUE)) {
            try {
                stage.rig.planner.handle(m);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        } else if (m.queue().equals(UsageLedger.QUEUE)) {
            stage.rig.usage.count(m);
        } else {
            stage.rig.advancer.handle(m);
        }
    }

    void rescue() {
        int rescued = stage.rig.queues.rescueExpired(100);
        stage.log("server: queue maintenance rescued " + rescued + " expired leases");
    }

    void sweep() {
        Fault f = stage.fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        try {
            stage.arm(f);
            int lost = stage.rig.agents.sweep();
            stage.log("server: lease sweep gave up " + lost + " tasks");
        } catch (RuntimeException e) {
            stage.crashedOrThrow(e, "server: lease sweep");
        } finally {
            stage.rig.faults.disarm();
        }
    }

    void jump() {
        Duration d = Duration.ofSeconds(5 + stage.random.nextInt(36));
        stage.rig.clock.advance(d);
        stage.log("time passes: +" + d.toSeconds() + "s");
    }

    /** Moves the clock to the next moment something is due (a queue message, a lease, a silent agent's return). */
    void idle() {
        Instant now = stage.rig.clock.instant();
        Instant next = stage.world.queue().next();
        for (World.Task t : stage.world.tasks()) {
            if (t.status().equals("running") && t.leaseUntil() != null) {
                Instant expiry = t.leaseUntil().plusMillis(1);
                next = next == null || expiry.isBefore(next) ? expiry : next;
            }
        }
        for (SimAgent a : agents) {
            if (a.silent(now)) {
                next = next == null || a.silentUntil.isBefore(next) ? a.silentUntil : next;
            }
        }
        if (next != null && next.isAfter(now)) {
            stage.rig.clock.set(next);
        }
        stage.log("idle: time passes to the next moment something is due");
        rescue();
        sweep();
    }

    private String describe(Message m) {
        if (m.queue().equals(UsageLedger.QUEUE)) {
            String[] task = m.payload().split(":", 2); // job id and node; ids differ from run to run, numbers do not
            return "count the charge of " + stage.world.usage().stream()
                    .filter(u -> u.jobId().toString().equals(task[0]) && u.node() == Integer.parseInt(task[1]))
                    .map(u -> "job #" + u.jobNumber() + " node " + u.node()).findFirst().orElse("a task");
        }
        UUID id = UUID.fromString(m.payload());
        if (m.queue().equals(PipelineTriggers.PLAN_QUEUE)) {
            return "plan pipeline #" + stage.world.pipelines().stream().filter(p -> p.id().equals(id))
                    .map(p -> String.valueOf(p.number())).findFirst().orElse("?");
        }
        return "advance " + stage.label(id);
    }
}
