package dev.gantry.server.agent;

import dev.gantry.server.notify.EventOutbox;
import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.TaskStatus;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * What follows a task's end, in the transaction that ended it: when every task of the job has ended, the job takes
 * {@link TaskStatus#jobOutcome} by compare-and-set (unless a cancel ended it first), and the caller must then have the
 * workflow advanced. The caller must hold the job's row lock ({@link TaskDao#lockJob}), so that two nodes ending at
 * once cannot both see the other still running. Stateless.
 */
final class JobSettlement {
    private JobSettlement() {
    }

    /**
     * Settles the job if its last task just ended; returns the outcome, or null while tasks still run. When it
     * returns an outcome the workflow needs an advance, also when a cancel ended the job first (an advance is
     * idempotent, and a missed one would leave the workflow waiting).
     */
    static JobStatus afterTaskEnded(Handle h, UUID jobId, Instant now) {
        TaskDao tasks = h.attach(TaskDao.class);
        List<TaskStatus> statuses = tasks.statuses(jobId).stream().map(TaskStatus::ofWord).toList();
        if (statuses.stream().anyMatch(s -> !s.terminal())) {
            return null;
        }
        JobStatus outcome = TaskStatus.jobOutcome(statuses);
        int settled = tasks.settleJob(jobId, outcome.word(), now.atOffset(ZoneOffset.UTC));
        if (settled > 1) {
            throw new IllegalStateException("settling job " + jobId + " changed " + settled + " rows");
        }
        if (settled == 1) {
            EventOutbox.jobCompleted(h, jobId, now.atOffset(ZoneOffset.UTC));
        }
        return outcome;
    }
}
