package dev.gantry.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * Breaks the cluster, one fault at a time, in an order and with targets and delays drawn from a seeded
 * {@link SplittableRandom} (timings still differ between runs of one seed: processes take the time they take). The
 * kinds come in rounds, each round the four kinds in a shuffled order, so a short run sees each one.
 *
 * <p>After each fault a probe pipeline (one job working 0 s, its trigger retried under one key) is triggered through
 * the balancer; the fault's <b>recovery time</b> is from the moment the fault is injected until that probe's
 * workflow is seen {@code success} through the API (polled every 250 ms). It thus includes the probe's own run (see
 * the baseline, a probe without a fault) and the wait behind the bounded backlog. Every fault, restoration and
 * recovery is logged with the time since the run began.
 */
final class FaultDriver {
    /** How long a probe may take before its fault counts as never recovered. */
    static final Duration PROBE_PATIENCE = Duration.ofMinutes(3);

    enum Kind {
        KILL_SERVER("kill -9 a server"), KILL_AGENT("kill -9 an agent"),
        KILL_DATABASE("kill -9 the postmaster"), PAUSE_SERVER("SIGSTOP a server");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** One injected fault: what, on whom, when (ms into the run, and epoch ms), and its recovery time (-1: never). */
    record Fault(int number, Kind kind, String target, long atMs, long atEpochMs, long recoveryMs) {
    }

    private final ChaosCluster cluster;
    private final Workload workload;
    private final ChaosApi api;
    private final ChaosPlan plan;
    private final SplittableRandom random;
    private final PrintStream log;
    private final long runStart;
    private final List<Kind> round = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final ExecutorService probes = Executors.newVirtualThreadPerTaskExecutor();

    FaultDriver(ChaosCluster cluster, Workload workload, ChaosApi api, ChaosPlan plan, SplittableRandom random,
                PrintStream log, long runStart) {
        this.cluster = cluster;
        this.workload = workload;
        this.api = api;
        this.plan = plan;
        this.random = random;
        this.log = log;
        this.runStart = runStart;
    }

    /** A probe without a fault: what recovery times are to be compared with. */
    long baseline() throws InterruptedException {
        return probe(System.nanoTime());
    }

    /** Injects faults while {@code goOn} says so, and at least {@link ChaosPlan#minFaults()}. */
    List<Fault> run(BooleanSupplier goOn) throws Exception {
        while (faults.size() < plan.minFaults() || goOn.getAsBoolean()) {
            Thread.sleep(plan.gap().toMillis() + random.nextLong(plan.gap().toMillis() + 1));
            faults.add(inject(faults.size() + 1, nextKind()));
        }
        probes.shutdown();
        return List.copyOf(faults);
    }

    private Kind nextKind() {
        if (round.isEmpty()) {
            round.addAll(List.of(Kind.values()));
            for (int i = round.size() - 1; i > 0; i--) { // Fisher-Yates, on the seeded generator
                int j = random.nextInt(i + 1);
                round.set(i, round.set(j, round.get(i)));
            }
        }
        return round.removeFirst();
    }

    private Fault inject(int number, Kind kind) throws Exception {
        int server = random.nextInt(cluster.servers());
        int agent = random.nextInt(cluster.agents());
        long restartAfterMs = switch (kind) {
            case KILL_SERVER -> 2_000 + random.nextLong(4_001);
            case KILL_AGENT -> 1_000 + random.nextLong(2_001);
            case KILL_DATABASE -> 0; // its supervisor restarts it
            case PAUSE_SERVER -> plan.pause().toMillis();
        };
        String target = switch (kind) {
            case KILL_SERVER, PAUSE_SERVER -> "server-" + (server + 1);
            case KILL_AGENT -> "agent-" + (agent + 1);
            case KILL_DATABASE -> "postgres";
        };
        long at = System.nanoTime();
        long atEpochMs = System.currentTimeMillis();
        long pid = switch (kind) {
            case KILL_SERVER -> cluster.killServer(server);
            case KILL_AGENT -> cluster.killAgent(agent);
            case KILL_DATABASE -> cluster.killPostmaster();
            case PAUSE_SERVER -> cluster.pauseServer(server, true);
        };
        log("fault %d: %s: %s (pid %d)%s", number, kind.label, target, pid,
                restartAfterMs > 0 ? String.format(Locale.ROOT, "; back in %.1f s", restartAfterMs / 1000.0) : "");
        Future<Long> probe = probes.submit(() -> probe(at));
        Thread.sleep(restartAfterMs);
        switch (kind) {
            case KILL_SERVER -> {
                long starting = System.nanoTime();
                int failed = cluster.startServer(server);
                log("fault %d: %s started again, answering after %.1f s%s", number, target,
                        (System.nanoTime() - starting) / 1e9, failed == 0 ? ""
                        : " (after " + failed + " start(s) that exited: it gives up when the database does not "
                        + "answer within its connect timeout; see its logs)");
            }
            case KILL_AGENT -> {
                cluster.startAgent(agent);
                log("fault %d: %s started again", number, target);
            }
            case KILL_DATABASE -> {
                // nothing to do: Database's supervisor notices within 0.5 s and starts it
            }
            case PAUSE_SERVER -> {
                cluster.pauseServer(server, false);
                log("fault %d: %s continued (SIGCONT)", number, target);
            }
        }
        long recovery;
        try {
            recovery = probe.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the probe after fault " + number + " failed", e.getCause());
        }
        log("fault %d: recovered in %s", number, recovery < 0 ? "NEVER (probe gave up after " + PROBE_PATIENCE + ")"
                : String.format(Locale.ROOT, "%.1f s", recovery / 1000.0));
        return new Fault(number, kind, target, (at - runStart) / 1_000_000, atEpochMs, recovery);
    }

    /** Triggers a probe and waits for its success; ms from {@code since}, or -1 if it did not succeed in time. */
    private long probe(long since) throws InterruptedException {
        Workload.Accepted accepted = workload.trigger(Shape.PROBE);
        if (accepted == null) {
            return -1;
        }
        long deadline = since + PROBE_PATIENCE.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode workflows = api.read("/api/v2/pipeline/" + accepted.id() + "/workflow").orElse(null);
            if (workflows != null && !workflows.path("items").isEmpty()) {
                String status = workflows.path("items").get(0).path("status").asText();
                if (status.equals("success")) {
                    return (System.nanoTime() - since) / 1_000_000;
                }
                if (!List.of("running", "on_hold", "failing").contains(status)) {
                    log("probe %s ended %s", accepted.id(), status);
                    return -1;
                }
            }
            Thread.sleep(250);
        }
        return -1;
    }

    private void log(String format, Object... args) {
        synchronized (log) {
            log.printf(Locale.ROOT, "[%s +%7.1fs] %s%n", Instant.now(), (System.nanoTime() - runStart) / 1e9,
                    String.format(Locale.ROOT, format, args));
        }
    }
}
