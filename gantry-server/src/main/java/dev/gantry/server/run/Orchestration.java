package dev.gantry.server.run;

import dev.gantry.queue.NewMessage;
import dev.gantry.queue.Queues;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * The hand-off to the orchestrator: whoever changes a workflow's jobs and does not advance it in the same transaction
 * itself (the lease sweeper, an approval, a cancel) asks for the workflow to be advanced, in the transaction of the
 * change. The orchestrator's worker then recomputes the workflow from its rows (unblocks dependents, queues their
 * tasks, retries a lost job, settles the workflow's status); that is idempotent, so a repeated message is harmless.
 */
public final class Orchestration {
    /** The queue of workflows to advance; a message's payload is the workflow id. */
    public static final String ADVANCE_QUEUE = "workflow-advance";

    private Orchestration() {
    }

    /** Enqueues an advance of {@code workflowId} within {@code h}'s transaction. */
    public static void requestAdvance(Handle h, Queues queues, UUID workflowId) {
        queues.enqueue(h, NewMessage.to(ADVANCE_QUEUE).payload(workflowId.toString()));
    }
}
