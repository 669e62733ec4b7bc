package dev.gantry.server.dst;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.orchestrator.WorkflowCommands;
import dev.gantry.server.pipeline.TriggerCalls;
import dev.gantry.server.project.ProjectSlug;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;

/** The API's clients: triggers with an idempotency key, and users' approvals, cancels and reruns. */
final class ClientSteps {
    /** A trigger a client sends until it is answered. */
    static final class Trigger {
        final String key;
        final String branch;
        TriggerCalls.Answer answer;
        /** The id of a pipeline this trigger committed whose answer was lost. */
        UUID committed;

        Trigger(String key, String branch) {
            this.key = key;
            this.branch = branch;
        }
    }

    private final Stage stage;
    private final ProjectSlug slug;
    final Set<String> keysSent = new LinkedHashSet<>();
    int reruns;
    int cancels;

    ClientSteps(Stage stage, ProjectSlug slug) {
        this.stage = stage;
        this.slug = slug;
    }

    void trigger(Trigger t) {
        Fault f = stage.fault(70, Fault.NONE, 15, Fault.CRASH, 15, Fault.LOST_ANSWER);
        keysSent.add(t.key);
        String what = "client: trigger " + t.key + " on " + t.branch;
        TriggerCalls.Answer a;
        try {
            stage.arm(f);
            a = stage.rig.triggers.trigger(slug, t.branch, t.key);
        } catch (RuntimeException e) {
            stage.crashedOrThrow(e, what);
            return;
        } finally {
            stage.rig.faults.disarm();
        }
        if (t.answer != null && (!t.answer.pipelineId().equals(a.pipelineId()) || a.created())) {
            throw new Invariants.Violation("the repeat of trigger " + t.key + " was answered with pipeline #"
                    + a.number() + (a.created() ? " (created)" : "") + ", not #" + t.answer.number());
        }
        if (t.committed != null && (!t.committed.equals(a.pipelineId()) || a.created())) {
            throw new Invariants.Violation("trigger " + t.key + " committed a pipeline whose answer was lost; its "
                    + "retry got pipeline #" + a.number() + (a.created() ? ", a new one" : ", another one"));
        }
        if (f == Fault.LOST_ANSWER) {
            t.committed = a.pipelineId();
            stage.log(what + " -> committed pipeline #" + a.number() + ", but the answer was lost");
            return;
        }
        if (t.answer == null) {
            t.answer = a;
        }
        stage.log(what + " -> pipeline #" + a.number() + (a.created() ? " (201)" : " (200, the same pipeline)"));
    }

    void approve(World.Job job) {
        command("user: approve job #" + job.number() + " " + job.name(), true,
                () -> stage.rig.commands.approve(job.workflowId(), job.id(), "admin"));
    }

    void cancel(World.Workflow w) {
        cancels++;
        command("user: cancel " + stage.label(w.id()), false, () -> stage.rig.commands.cancel(w.id(), "admin"));
    }

    void rerun(World.Workflow w) {
        reruns++;
        boolean fromFailed = stage.random.nextBoolean();
        command("user: rerun " + stage.label(w.id()) + (fromFailed ? " from failed" : ""), true,
                () -> stage.rig.commands.rerun(w.id(),
                        new WorkflowCommands.Rerun(fromFailed, Set.of(), false), "admin"));
    }

    /**
     * A user's command, crashing in one of ten; {@code mayBeRefused}: an API refusal (an approval no longer on hold,
     * a rerun of a running workflow) is an answer to log, else it fails the seed.
     */
    private void command(String what, boolean mayBeRefused, Runnable call) {
        Fault f = stage.fault(90, Fault.NONE, 10, Fault.CRASH, 0, Fault.NONE);
        try {
            stage.arm(f);
            call.run();
            stage.log(what);
        } catch (ApiException e) {
            if (!mayBeRefused) {
                stage.crashedOrThrow(e, what);
                return;
            }
            stage.log(what + " -> " + e.status());
        } catch (RuntimeException e) {
            stage.crashedOrThrow(e, what);
        } finally {
            stage.rig.faults.disarm();
        }
    }
}
