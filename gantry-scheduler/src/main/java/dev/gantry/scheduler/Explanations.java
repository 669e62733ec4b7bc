package dev.gantry.scheduler;

import java.time.Instant;
import java.util.Optional;

/** The {@link Waiting} for each reason, with a message that gives the numbers an operator needs. */
final class Explanations {
    private Explanations() {
    }

    static Waiting orgLimit(PendingJob job, int running, Optional<Instant> slotFreesAt) {
        return new Waiting(job.id(), WaitReason.ORG_CONCURRENCY_LIMIT, slotFreesAt,
                "organisation " + job.organization() + " is at its concurrency limit (" + running
                        + " running)" + expected("one of them is expected to end", slotFreesAt));
    }

    static Waiting noInstanceLargeEnough(PendingJob job, Optional<Resources> largest) {
        return new Waiting(job.id(), WaitReason.NO_INSTANCE_LARGE_ENOUGH, Optional.empty(),
                "class " + job.resourceClass().name() + " needs " + job.demand() + "; "
                        + largest.map(r -> "the largest instance in pool " + job.pool() + " has " + r)
                                .orElse("pool " + job.pool() + " has no instance that is up or starting"));
    }

    static Waiting noCapacity(PendingJob job, Optional<Instant> estimate, int bigEnough, long provisioning) {
        return new Waiting(job.id(), WaitReason.NO_CAPACITY, estimate,
                "none of the " + bigEnough + " instances in pool " + job.pool() + " that can run class "
                        + job.resourceClass().name() + " (" + job.demand() + ") has room now ("
                        + provisioning + " of them provisioning)" + expected("room is expected", estimate));
    }

    static Waiting reservedForOlderJob(PendingJob job, Reservation held, Optional<Instant> elsewhere) {
        String why = held.start().isEmpty()
                ? "its start cannot be estimated, so nothing is backfilled onto it"
                : job.expectedDuration().isEmpty()
                        ? "this job's duration is unknown, so it cannot be shown to end by " + held.start().get()
                        : "this job is expected to run " + job.expectedDuration().get() + ", past "
                                + held.start().get();
        return new Waiting(job.id(), WaitReason.RESERVED_FOR_OLDER_JOB, elsewhere,
                "instance " + held.instanceId() + " has room but is held for older job " + held.jobId() + "; " + why
                        + expected("room elsewhere is expected", elsewhere));
    }

    private static String expected(String what, Optional<Instant> when) {
        return when.map(t -> "; " + what + " at " + t).orElse("");
    }
}
