package dev.gantry.server.status;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one evaluation read from the database, before any rule judged it: counts and waits over the short
 * ({@code recent}) and the long ({@code longer}) window. Immutable.
 *
 * @param at            when it was read (the server's clock)
 * @param api           requests to {@code /api/…} and {@code /webhooks/…}, summed over every server
 * @param intake        triggers and plans
 * @param jobStarts     the waits of job tasks per resource class and pool
 * @param output        requests that write or read job output, summed over every server
 * @param notifications the notifications made (webhooks, Slack, e-mail, commit statuses), and those failing
 */
record Measurements(Instant at, Traffic api, Intake intake, List<JobStarts> jobStarts, Traffic output,
                    Traffic notifications) {
    Measurements {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(api, "api");
        Objects.requireNonNull(intake, "intake");
        Objects.requireNonNull(output, "output");
        jobStarts = List.copyOf(jobStarts);
    }

    /** How many events a window had and how many of them were bad (5xx, or a plan the server failed). */
    record Count(long events, long bad) {
        static final Count NONE = new Count(0, 0);

        Count {
            if (events < 0 || bad < 0 || bad > events) {
                throw new IllegalArgumentException("a count needs 0 <= bad <= events, got " + bad + " of " + events);
            }
        }

        double ratio() {
            return events == 0 ? 0 : (double) bad / events;
        }

        Count plus(Count other) {
            return new Count(events + other.events, bad + other.bad);
        }
    }

    /** Requests (or deliveries) over both windows. */
    record Traffic(Count recent, Count longer) {
        static final Traffic NONE = new Traffic(Count.NONE, Count.NONE);
    }

    /**
     * The tasks that started in a window or still wait, with their waits (a waiting task counts with its wait so far).
     *
     * @param tasks           how many
     * @param waiting         how many of them still wait
     * @param p95Millis       the 95th percentile of their waits
     * @param oldestWaitingMillis the longest wait so far of those still waiting; 0 when none waits
     */
    record Waits(long tasks, long waiting, long p95Millis, long oldestWaitingMillis) {
        static final Waits NONE = new Waits(0, 0, 0, 0);
    }

    /** One resource class in one pool (the pool the fleet file pins its images to, else {@code default}). */
    record JobStarts(String resourceClass, String pool, Waits recent, Waits longer) {
    }

    /**
     * @param recent             over the short window: triggers refused with a 5xx plus pipelines created (the
     *                           events), of which triggers refused plus plans that failed on an internal error (bad)
     * @param longer             the same over the long window
     * @param pending            pipelines waiting for their plan now
     * @param oldestPendingMillis how long the oldest of them has waited; 0 when none
     */
    record Intake(Count recent, Count longer, long pending, long oldestPendingMillis) {
        static final Intake NONE = new Intake(Count.NONE, Count.NONE, 0, 0);
    }
}
