package dev.gantry.bench.chaos;

import java.util.List;
import java.util.Locale;

/**
 * The figures of one chaos run. The zero counts ({@link #lostTriggers}, {@link #ranTwice}, {@link #nodesRerun},
 * {@link #notFinal}, {@link #duplicates}, {@link #unaccepted}, {@link #doubleUsage}) and the two bounds decide whether it {@link #passed}.
 *
 * @param pipelines      workload triggers accepted
 * @param probes         probe triggers accepted
 * @param finalCount     accepted pipelines (both kinds) found in a final state through the API at the end
 * @param lostTriggers   accepted pipelines the API does not know at the end
 * @param notFinal       accepted pipelines still going when the drain time ran out
 * @param ranTwice       jobs the trace shows running twice to completion, and tasks ending twice in one attempt
 * @param ranTwiceUnrecorded jobs (or nodes of a parallel job) that ran twice because the agent of the first attempt
 *                       was killed between the last step and keeping its result (at-least-once; see
 *                       {@code ChaosRun}): reported, not a failure
 * @param nodesRerun     nodes that had finished and ran again in their job's retry, other than those of
 *                       {@code ranTwiceUnrecorded} (a retry runs only the nodes that did not succeed)
 * @param duplicates     pipelines in the database beyond those accepted (a retried trigger stored twice)
 * @param unaccepted     triggers never accepted within the trigger patience (never acknowledged, so not lost)
 * @param retried        accepted triggers that needed more than one request
 * @param unexpected     pipelines that ended otherwise than their shape does without faults
 * @param infraRetries   jobs retried after their agent was lost (attempt 2)
 * @param doubleUsage    task attempts the usage ledger charged twice, nodes it charged in a retry that did not run
 *                       them, and ended tasks it did not charge although their organization's charging was on
 * @param faults         the injected faults
 * @param baselineMs     a probe's time without a fault
 * @param deadTuplesMax  the most dead tuples any table had at a sample
 * @param walMb          the largest {@code pg_wal} seen, MiB
 * @param serverStartFailures restarted servers that exited before answering and were started again
 */
record ChaosResult(long seed, String plan, long pipelines, long probes, long finalCount, long lostTriggers,
                   long notFinal, long ranTwice, long ranTwiceUnrecorded, long nodesRerun, long duplicates,
                   long unaccepted, long retried, long unexpected, long infraRetries, long doubleUsage,
                   List<FaultDriver.Fault> faults,
                   long baselineMs, long deadTuplesMax, String deadTuplesTable, double walMb, int serverStartFailures,
                   long seconds) {
    /**
     * The most dead tuples a table may have at a sample. Queues drop whole partitions rather than deleting rows, and
     * autovacuum keeps the run tables (jobs, tasks) near 20 % of their live rows: a few hundred to a few thousand in
     * these runs. Ten thousand means something stopped vacuuming or started rewriting rows in a loop.
     */
    static final long DEAD_TUPLES_LIMIT = 10_000;
    /**
     * The largest {@code pg_wal} allowed, MiB: PostgreSQL's default {@code max_wal_size}, which checkpoints keep the
     * directory under unless something holds WAL back.
     */
    static final double WAL_MB_LIMIT = 1_024;

    boolean passed() {
        return lostTriggers == 0 && ranTwice == 0 && nodesRerun == 0 && notFinal == 0 && duplicates == 0
                && unaccepted == 0 && doubleUsage == 0 && deadTuplesMax <= DEAD_TUPLES_LIMIT && walMb <= WAL_MB_LIMIT
                && faults.stream().allMatch(f -> f.recoveryMs() >= 0);
    }

    long recoveryP50Ms() {
        return percentile(0.5);
    }

    long recoveryMaxMs() {
        return percentile(1.0);
    }

    /** Recovery times by nearest rank; a fault never recovered counts as the largest. */
    private long percentile(double p) {
        List<Long> times = faults.stream().map(f -> f.recoveryMs() < 0 ? Long.MAX_VALUE : f.recoveryMs()).sorted()
                .toList();
        if (times.isEmpty()) {
            return 0;
        }
        long value = times.get(Math.max(0, (int) Math.ceil(p * times.size()) - 1));
        return value == Long.MAX_VALUE ? -1 : value;
    }

    private long count(FaultDriver.Kind kind) {
        return faults.stream().filter(f -> f.kind() == kind).count();
    }

    String resultLine() {
        return String.format(Locale.ROOT, "RESULT pipelines=%d probes=%d final=%d lost_triggers=%d not_final=%d "
                        + "ran_twice=%d ran_twice_unrecorded=%d nodes_rerun=%d duplicate_pipelines=%d unaccepted=%d "
                        + "retried_triggers=%d unexpected=%d infra_retries=%d double_usage=%d faults=%d "
                        + "server_kills=%d agent_kills=%d db_kills=%d server_pauses=%d recovery_p50_ms=%d "
                        + "recovery_max_ms=%d probe_baseline_ms=%d dead_tuples_max=%d wal_mb=%.0f "
                        + "server_start_failures=%d seconds=%d seed=%d",
                pipelines, probes, finalCount, lostTriggers, notFinal, ranTwice, ranTwiceUnrecorded, nodesRerun,
                duplicates, unaccepted, retried, unexpected, infraRetries, doubleUsage, faults.size(),
                count(FaultDriver.Kind.KILL_SERVER), count(FaultDriver.Kind.KILL_AGENT),
                count(FaultDriver.Kind.KILL_DATABASE), count(FaultDriver.Kind.PAUSE_SERVER), recoveryP50Ms(),
                recoveryMaxMs(), baselineMs, deadTuplesMax, walMb, serverStartFailures, seconds, seed);
    }
}
