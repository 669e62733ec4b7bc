package dev.gantry.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One chaos run: starts a {@link ChaosCluster}, feeds it the workload (shapes drawn from the seed, at most
 * {@link ChaosPlan#inFlight()} unfinished at once) while the {@link FaultDriver} breaks it, waits for every accepted
 * pipeline to finish, and checks what happened: through the API for the pipelines, in the trace for what ran, in the
 * database for duplicates, retries, dead tuples and WAL.
 */
final class ChaosRun {
    private static final List<Shape> WORKLOAD = List.of(Shape.SINGLE, Shape.FANOUT, Shape.PARALLEL, Shape.FAILING);
    /** Per cent of workload pipelines of each shape, in {@link #WORKLOAD}'s order. */
    private static final int[] WEIGHTS = {35, 25, 20, 20};
    private static final Set<String> GOING = Set.of("running", "on_hold", "failing");
    /** See {@link #killedBeforeRecording}: a step's exit to the agent's result on disk takes well under this. */
    private static final long RECORDING_WINDOW_MS = 2_000;

    private final ChaosPlan plan;
    private final long seed;
    private final Path dir;
    private final PrintStream out;
    private final long start = System.nanoTime();

    ChaosRun(ChaosPlan plan, long seed, Path dir, PrintStream out) {
        this.plan = plan;
        this.seed = seed;
        this.dir = dir;
        this.out = out;
    }

    ChaosResult run() throws Exception {
        SplittableRandom root = new SplittableRandom(seed);
        SplittableRandom faultRandom = root.split();
        SplittableRandom workloadRandom = root.split();
        log("seed %d; plan %s: %d pipelines (at most %d unfinished), 2 servers, %d agents, pauses of %d s; in %s",
                seed, plan.name(), plan.pipelines(), plan.inFlight(), plan.agents(), plan.pause().toSeconds(), dir);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        ExecutorService feeder = Executors.newVirtualThreadPerTaskExecutor();
        try (ChaosCluster cluster = ChaosCluster.start(dir, 2, plan.agents())) {
            log("cluster up: PostgreSQL, S3Proxy, 2 servers behind %s, %d agents", cluster.url(), plan.agents());
            Path trace = Files.createFile(dir.resolve("trace.log"));
            Workload.registerProjects(cluster.admin(), dir, trace, plan.sleep());
            ChaosApi api = new ChaosApi(cluster.url(), cluster.adminToken());
            Workload workload = new Workload(api, seed);
            DatabaseWatch watch = new DatabaseWatch(cluster.dataSource(), cluster.walDirectory());
            sampler.scheduleWithFixedDelay(watch::sample, 0, 2, TimeUnit.SECONDS);
            FaultDriver driver = new FaultDriver(cluster, workload, api, plan, faultRandom, out, start);
            long baseline = driver.baseline();
            log("probe without a fault: %d ms", baseline);

            AtomicBoolean triggering = new AtomicBoolean(true);
            Future<?> feeding = feeder.submit(() -> {
                try {
                    feed(workload, watch, workloadRandom);
                } finally {
                    triggering.set(false);
                }
                return null;
            });
            List<FaultDriver.Fault> faults = driver.run(triggering::get);
            feeding.get();
            log("all triggered; %d faults injected; waiting up to %d s for every pipeline to finish", faults.size(),
                    plan.drain().toSeconds());
            drain(workload, watch);
            watch.sample();
            watch.dumpTasks(dir.resolve("tasks.tsv"));
            return check(workload, api, watch, new Trace(trace), faults, baseline, cluster.startFailures());
        } finally {
            sampler.shutdownNow();
            feeder.shutdownNow();
        }
    }

    /** Triggers the workload, keeping at most {@link ChaosPlan#inFlight()} pipelines unfinished. */
    private void feed(Workload workload, DatabaseWatch watch, SplittableRandom random) throws InterruptedException {
        Set<String> unfinished = new HashSet<>();
        long checked = 0;
        for (int n = 1; n <= plan.pipelines(); ) {
            if (unfinished.size() >= plan.inFlight() || System.nanoTime() - checked > 1_000_000_000L) {
                try {
                    unfinished.removeAll(watch.finished(unfinished));
                } catch (SQLException down) {
                    // the database is away: keep the last count
                }
                checked = System.nanoTime();
                if (unfinished.size() >= plan.inFlight()) {
                    Thread.sleep(200);
                    continue;
                }
            }
            Workload.Accepted accepted = workload.trigger(pick(random));
            if (accepted != null) {
                unfinished.add(accepted.id());
            }
            if (n % 100 == 0 || n == plan.pipelines()) {
                log("triggered %d of %d pipelines", n, plan.pipelines());
            }
            n++;
            Thread.sleep(plan.pace().toMillis());
        }
    }

    private static Shape pick(SplittableRandom random) {
        int roll = random.nextInt(100);
        for (int i = 0; i < WEIGHTS.length; i++) {
            roll -= WEIGHTS[i];
            if (roll < 0) {
                return WORKLOAD.get(i);
            }
        }
        throw new IllegalStateException("weights do not add up to 100");
    }

    private void drain(Workload workload, DatabaseWatch watch) throws InterruptedException {
        Set<String> open = new HashSet<>();
        workload.accepted().forEach(a -> open.add(a.id()));
        long deadline = System.nanoTime() + plan.drain().toNanos();
        while (!open.isEmpty() && System.nanoTime() < deadline) {
            try {
                open.removeAll(watch.finished(open));
            } catch (SQLException down) {
                // try again
            }
            Thread.sleep(500);
        }
    }

    private enum Outcome { LOST, NOT_FINAL, EXPECTED, UNEXPECTED }

    private ChaosResult check(Workload workload, ChaosApi api, DatabaseWatch watch, Trace trace,
                              List<FaultDriver.Fault> faults, long baseline, int startFailures)
            throws Exception {
        List<Workload.Accepted> accepted = workload.accepted();
        long[] outcomes = new long[Outcome.values().length];
        List<String> problems = new ArrayList<>();
        for (Workload.Accepted pipeline : accepted) {
            Outcome outcome = outcome(api, pipeline);
            outcomes[outcome.ordinal()]++;
            if (outcome != Outcome.EXPECTED && problems.size() < 20) {
                problems.add(outcome + " " + pipeline.shape().project + " " + pipeline.id() + " (key "
                        + pipeline.key() + ")");
            }
        }
        problems.forEach(p -> log("check: %s", p));
        Trace.Counts ran = trace.counts();
        long unrecordedJobs = killedBeforeRecording(ran.ranTwice(), watch, faults);
        long unrecordedNodes = killedBeforeRecording(ran.nodesRerun(), watch, faults);
        long ranTwice = ran.taskRanTwice() + ran.ranTwice().size() - unrecordedJobs;
        long nodesRerun = ran.nodesRerun().size() - unrecordedNodes;
        long unrecorded = unrecordedJobs + unrecordedNodes;
        long stored = watch.count("SELECT count(*) FROM gantry.pipeline");
        long infraRetries = watch.count("SELECT count(*) FROM gantry.job WHERE attempt = 2");
        DatabaseWatch.DoubleUsage usage = watch.doubleUsage();
        long probes = accepted.stream().filter(a -> a.shape() == Shape.PROBE).count();
        log("trace: %d job nodes ended; %d jobs ran twice to completion and %d nodes of other jobs ran again in a "
                + "retry (%d of these because their agent was killed before it kept the result), %d tasks ended twice "
                + "in one attempt; %d jobs started a second attempt", ran.nodesEnded(), ran.ranTwice().size(),
                ran.nodesRerun().size(), unrecorded, ran.taskRanTwice(), ran.jobsRestarted());
        log("database: %d pipelines stored for %d accepted; %d jobs retried after a lost agent; most dead tuples "
                + "%d (%s); largest pg_wal %.1f MiB", stored, accepted.size(), infraRetries, watch.deadTuplesMax(),
                watch.deadTuplesTable(), watch.walBytesMax() / 1048576.0);
        log("usage ledger: %d task attempts charged twice, %d nodes charged in a retry that did not run them, %d "
                + "ended tasks not charged", usage.chargedTwice(), usage.chargedNotRun(), usage.uncharged());
        return new ChaosResult(seed, plan.name(), accepted.size() - probes, probes,
                outcomes[Outcome.EXPECTED.ordinal()] + outcomes[Outcome.UNEXPECTED.ordinal()],
                outcomes[Outcome.LOST.ordinal()], outcomes[Outcome.NOT_FINAL.ordinal()], ranTwice, unrecorded,
                nodesRerun,
                Math.max(0, stored - accepted.size()), workload.unaccepted(), workload.retried(),
                outcomes[Outcome.UNEXPECTED.ordinal()], infraRetries, usage.total(), faults, baseline,
                watch.deadTuplesMax(), watch.deadTuplesTable(), watch.walBytesMax() / 1048576.0, startFailures,
                (System.nanoTime() - start) / 1_000_000_000);
    }

    /**
     * How many of {@code twice} (jobs, or nodes of one) ran twice only because the agent of the first attempt (of
     * that node) was killed by the driver within {@link #RECORDING_WINDOW_MS} of the attempt's last step ending
     * (before it, or after: the driver kills the agent first and its steps a moment later, so a step may end after
     * its agent died), and the result never reached the
     * server (the sweeper gave the task up and no outcome came after): the job's work was done, but nothing durable
     * said so before the agent died, so its retry is at-least-once doing its job. Any other second completion is a
     * fault.
     */
    private long killedBeforeRecording(List<Trace.Twice> twice, DatabaseWatch watch, List<FaultDriver.Fault> faults)
            throws SQLException {
        long killed = 0;
        for (Trace.Twice t : twice) {
            killed += killedBeforeRecording(t, watch, faults) ? 1 : 0;
        }
        return killed;
    }

    private boolean killedBeforeRecording(Trace.Twice twice, DatabaseWatch watch, List<FaultDriver.Fault> faults)
            throws SQLException {
        List<DatabaseWatch.TaskState> first = watch.tasks(twice.pipeline(), twice.firstAttempt()).stream()
                .filter(t -> twice.node() == null || t.node() == twice.node()).toList();
        List<DatabaseWatch.TaskState> unheard = first.stream().filter(t -> t.givenUp() && t.superseded() == null
                && t.status().equals("infrastructure_fail")).toList();
        boolean heard = first.stream().anyMatch(t -> t.superseded() != null);
        String agent = unheard.isEmpty() ? null : unheard.getFirst().agent();
        // the kill of that agent nearest to the attempt's end, in ms after it (negative: before it)
        Long killedAfterMs = faults.stream()
                .filter(f -> f.kind() == FaultDriver.Kind.KILL_AGENT && ("chaos-" + f.target()).equals(agent))
                .map(f -> f.atEpochMs() - twice.endedAtMillis()).min(Comparator.comparingLong(Math::abs))
                .orElse(null);
        boolean inWindow = !heard && killedAfterMs != null && Math.abs(killedAfterMs) <= RECORDING_WINDOW_MS;
        log("ran twice: job %s%s of pipeline %s; first attempt #%d on %s, its tasks %s; %s", twice.job(),
                twice.node() == null ? "" : " node " + twice.node(), twice.pipeline(), twice.firstAttempt(), agent,
                first,
                killedAfterMs == null ? "that agent was never killed"
                        : "its agent was killed " + killedAfterMs + " ms after the attempt's last step ended");
        return inWindow;
    }

    /** What the API says of an accepted pipeline; asked a few times, as a single answer may be a 503. */
    private static Outcome outcome(ChaosApi api, Workload.Accepted pipeline) throws Exception {
        ChaosApi.Answer answer = settled(api, "/api/v2/pipeline/" + pipeline.id());
        if (answer.status() == 404) {
            return Outcome.LOST;
        }
        if (answer.json().path("state").asText().equals("errored")) {
            return Outcome.UNEXPECTED;
        }
        JsonNode workflows = settled(api, "/api/v2/pipeline/" + pipeline.id() + "/workflow").json().path("items");
        if (workflows.isEmpty()) {
            return Outcome.NOT_FINAL;
        }
        for (JsonNode workflow : workflows) {
            if (GOING.contains(workflow.path("status").asText())) {
                return Outcome.NOT_FINAL;
            }
        }
        return workflows.get(0).path("status").asText().equals(pipeline.shape().expected)
                ? Outcome.EXPECTED : Outcome.UNEXPECTED;
    }

    /**
     * A GET answered 200 or 404, asked again a second later after anything else: the check reads a thousand
     * pipelines with one token, so the API's rate limit answers some of them 429 (a full run once counted 9 finished
     * pipelines as not final because their workflows' answer was a 429 read as "no workflows").
     */
    private static ChaosApi.Answer settled(ChaosApi api, String path) throws Exception {
        for (int attempt = 1; ; attempt++) {
            ChaosApi.Answer answer;
            try {
                answer = api.get(path);
            } catch (java.io.IOException e) {
                answer = new ChaosApi.Answer(0, null);
            }
            if (answer.status() == 200 || answer.status() == 404) {
                return answer;
            }
            if (attempt == 10) {
                throw new IllegalStateException("GET " + path + " answered " + answer.status() + " ten times");
            }
            Thread.sleep(1_000);
        }
    }

    private void log(String format, Object... args) {
        synchronized (out) {
            out.printf(Locale.ROOT, "[%s +%7.1fs] %s%n", Instant.now(), (System.nanoTime() - start) / 1e9,
                    String.format(Locale.ROOT, format, args));
        }
    }
}
