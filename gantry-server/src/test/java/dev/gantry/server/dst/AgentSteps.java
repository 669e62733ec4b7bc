package dev.gantry.server.dst;

import dev.gantry.server.agent.AgentCalls;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.run.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * The simulated agents' steps: register, claim, heartbeat, step reports, completion, crash and silence. Every report
 * is checked against the task as the database has it just before: accepted exactly when the lease is current (or
 * the report repeats a completion that landed).
 */
final class AgentSteps {
    private enum Report { HEARTBEAT, STEP, COMPLETE }

    private final Stage stage;

    AgentSteps(Stage stage) {
        this.stage = stage;
    }

    void register(SimAgent agent) {
        UUID given = stage.rig.agents.register("dst-" + agent.name(), 2, 4096);
        // Fixed ids, in slot order: placement breaks ties between equal agents by id.
        UUID fixed = new UUID(stage.run, agent.slot * 1_000L + agent.incarnation);
        stage.rig.checks.useHandle(h -> h.execute("UPDATE gantry.agent SET id = ? WHERE id = ?", fixed, given));
        agent.id = fixed;
    }

    /** The agent claims; false when the server had nothing for it. */
    boolean claim(SimAgent a) {
        Fault f = stage.fault(75, Fault.NONE, 10, Fault.CRASH, 15, Fault.LOST_ANSWER);
        String what = "agent " + a.name() + ": claim";
        Optional<AgentCalls.Claimed> claimed;
        try {
            stage.arm(f);
            claimed = stage.rig.agents.claim(a.id, 2, 4096);
        } catch (RuntimeException e) {
            stage.crashedOrThrow(e, what);
            return true;
        } finally {
            stage.rig.faults.disarm();
        }
        if (claimed.isEmpty()) {
            stage.log(what + " -> nothing for it");
            return false;
        }
        AgentCalls.Claimed c = claimed.get();
        String task = "job #" + c.jobNumber() + " node " + c.task().nodeIndex() + " (attempt " + c.attempt() + ")";
        if (f == Fault.LOST_ANSWER) {
            stage.log(what + " -> " + task + ", but the answer was lost");
            return true;
        }
        a.held = new SimAgent.Held(c, stage.random.nextInt(4) == 0 ? TaskStatus.FAILED : TaskStatus.SUCCESS,
                stage.random.nextInt(3));
        stage.log(what + " -> " + task + ", will end " + a.held.outcome.word());
        return true;
    }

    void work(SimAgent a) {
        SimAgent.Held h = a.held;
        Report report;
        if (a.silentUntil != null) {
            // Back from silence: it reports whatever it was about to, unaware of how long it was away.
            a.silentUntil = null;
            report = switch (stage.random.nextInt(3)) {
                case 0 -> Report.HEARTBEAT;
                case 1 -> h.stepsLeft > 0 ? Report.STEP : Report.COMPLETE;
                default -> Report.COMPLETE;
            };
        } else if (stage.faults) {
            report = h.cancel || h.stepsLeft == 0 ? (stage.random.nextInt(3) == 0 ? Report.HEARTBEAT : Report.COMPLETE)
                    : (stage.random.nextBoolean() ? Report.HEARTBEAT : Report.STEP);
        } else {
            // Calm: get on with it (its steps are reported in the fault phase), heartbeating only when the lease
            // nears its end.
            World.Task t = stage.world.task(h.claimed.task().jobId(), h.claimed.task().nodeIndex());
            boolean renew = t != null && t.status().equals("running") && t.leaseUntil() != null
                    && t.leaseUntil().isBefore(stage.rig.clock.instant().plus(Rig.AGENT.leaseTimeout().dividedBy(2)));
            report = renew ? Report.HEARTBEAT : Report.COMPLETE;
        }
        TaskStatus end = h.cancel ? TaskStatus.CANCELED : h.outcome;
        String what = "agent " + a.name() + ": " + switch (report) {
            case HEARTBEAT -> "heartbeat";
            case STEP -> "step " + h.nextStep;
            case COMPLETE -> "complete " + end.word();
        } + " of " + h.label();
        Fault f = stage.fault(64, Fault.NONE, 9, Fault.LOST_REQUEST, 9, Fault.CRASH, 9, Fault.LOST_ANSWER, 9,
                Fault.DUPLICATE);
        if (f == Fault.LOST_REQUEST) {
            stage.log(what + " -> lost before the server; the agent will send it again");
            return;
        }
        int sends = f == Fault.DUPLICATE ? 2 : 1;
        for (int send = 1; send <= sends; send++) {
            World.Task before = taskNow(h);
            boolean current = before != null && before.status().equals("running")
                    && h.claimed.lease().equals(before.lease());
            boolean repeat = report == Report.COMPLETE && before != null && h.claimed.lease().equals(before.lease())
                    && TaskStatus.ofWord(before.status()).terminal()
                    && !before.status().equals(TaskStatus.INFRASTRUCTURE_FAIL.word());
            // A completion after the sweeper gave the task up is taken late (or kept as superseded), never refused.
            boolean late = report == Report.COMPLETE && before != null && h.claimed.lease().equals(before.lease())
                    && before.status().equals(TaskStatus.INFRASTRUCTURE_FAIL.word());
            String taken;
            try {
                stage.arm(f);
                taken = send(report, h, end);
            } catch (ApiException e) {
                if (e.status() != 409) {
                    throw e;
                }
                if (current || repeat || late) {
                    throw new Invariants.Violation(what + " was refused (409) though the agent holds the task's "
                            + "current lease");
                }
                stage.log(what + " -> 409: the lease is no longer the task's; the agent stops the task");
                a.held = null;
                return;
            } catch (RuntimeException e) {
                stage.crashedOrThrow(e, what);
                return;
            } finally {
                stage.rig.faults.disarm();
            }
            if (!current && !repeat && !late) {
                throw new Invariants.Violation(what + " was accepted, but the server had given the task up or "
                        + "handed it to another (task is " + (before == null ? "gone" : before.status()) + ")");
            }
            if (f == Fault.LOST_ANSWER) {
                stage.log(what + " -> accepted, but the answer was lost; the agent will send it again");
                return;
            }
            if (send < sends) {
                continue; // the same report again: the agent acts on the last answer
            }
            boolean cancel = taken.equals("cancel");
            switch (report) {
                case HEARTBEAT -> h.cancel |= cancel;
                case STEP -> {
                    h.stepsLeft--;
                    h.nextStep++;
                }
                case COMPLETE -> a.held = null;
            }
            stage.log(what + " -> accepted" + (cancel ? ", cancel requested" : "")
                    + (taken.isEmpty() || cancel ? "" : " (" + taken + ")") + (sends == 2 ? " (sent twice)" : ""));
        }
    }

    /**
     * Sends one report; "cancel" when a heartbeat's answer asks to cancel, how a completion was taken when it was not
     * simply ended ("late", "superseded", "repeated"), else "".
     */
    private String send(Report report, SimAgent.Held h, TaskStatus end) {
        Instant now = stage.rig.clock.instant();
        return switch (report) {
            case HEARTBEAT -> stage.rig.agents.heartbeat(h.claimed.task(), h.claimed.lease()) ? "cancel" : "";
            case STEP -> {
                stage.rig.agents.step(h.claimed.task(), h.claimed.lease(), h.nextStep, "success", now, now);
                yield "";
            }
            case COMPLETE -> {
                String how = stage.rig.agents.complete(h.claimed.task(), h.claimed.lease(), end, h.nextStep, now);
                yield how.equals("ended") ? "" : how;
            }
        };
    }

    private World.Task taskNow(SimAgent.Held h) {
        return World.task(stage.rig.checks, h.claimed.task().jobId(), h.claimed.task().nodeIndex());
    }

    void crash(SimAgent a) {
        stage.log("agent " + a.name() + " crashes" + (a.held == null ? "" : ", forgetting " + a.held.label())
                + "; it restarts and registers again");
        a.held = null;
        a.silentUntil = null;
        a.incarnation++;
        register(a);
    }

    void silence(SimAgent a) {
        Duration d = Rig.AGENT.leaseTimeout().plusSeconds(1 + stage.random.nextInt(30));
        a.silentUntil = stage.rig.clock.instant().plus(d);
        stage.log("agent " + a.name() + " goes silent for " + d.toSeconds() + "s, holding " + a.held.label());
    }
}
