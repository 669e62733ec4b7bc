package dev.gantry.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gantry.bench.Suite;
import dev.gantry.cli.client.GantryClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code bench notify}: issue 33's isolation through real agents. A {@link GantryRig} (server and agents as
 * processes) runs {@code N} pipelines (quick: 50, else 200) twice, after a warm-up of N/4: once with four healthy
 * webhook endpoints and a healthy Slack endpoint, once with one of the webhooks answering 500 to everything and the
 * Slack endpoint hanging, as issue 33 has it. Each endpoint is a receiver on 127.0.0.1 (so the server runs with
 * --allow-private-networks). Measured: the three healthy endpoints' delivery latency (the workflow's
 * {@code stopped_at} in the body → the request's arrival; same machine, same clock), the jobs' start latency (queued
 * → started, from the database), and the calls to the failing endpoint per delivery sent to it. Both measured runs
 * go on beside a backlog of {@value #QUEUED_BACKLOG} queued jobs that no agent can take (they need
 * {@code 2xlarge+}), as issue 33 asks freshness to be measured: every claim matches against them. Ends with
 * {@code RESULT healthy_p99_ms=… healthy_p99_ms_baseline=… ratio=… failing_attempts_per_delivery=…
 * freshness_p99_ms=… job_start_p95_ms=… job_start_p95_ms_baseline=… queued_backlog=…}.
 */
public final class NotifySuite implements Suite {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Unfinished pipelines kept triggered: enough to keep the agents busy. */
    private static final int BACKLOG = 40;
    /** Jobs queued that no agent can take, through the measured runs: 10 pipelines of 100. */
    private static final int QUEUED_BACKLOG = 1_000;
    private static final int BACKLOG_JOBS_EACH = 100;
    /** A workflow of {@value #BACKLOG_JOBS_EACH} jobs that need 20 vCPU; the bench's agents have 1 each. */
    private static final String BACKLOG_CONFIG = """
            version: 2.1
            jobs:
              big:
                docker: [{image: cimg/base:2024.01}]
                resource_class: 2xlarge+
                parameters: {n: {type: integer}}
                steps: [{run: "true"}]
            workflows:
              backlog:
                jobs:
                  - big: {matrix: {parameters: {n: [%s]}}}
            """.formatted(IntStream.rangeClosed(1, BACKLOG_JOBS_EACH).mapToObj(Integer::toString)
            .collect(Collectors.joining(", ")));

    @Override
    public String name() {
        return "notify";
    }

    @Override
    public String description() {
        return "healthy webhooks' delivery and job starts beside a failing and a hanging endpoint, through agents";
    }

    /** One run's figures. */
    private record Figures(List<Double> healthyMs, List<Double> jobStartMs, int failingCalls) {
    }

    @Override
    public int run(boolean quick, PrintStream out, PrintStream err) throws Exception {
        int pipelines = quick ? 50 : 200;
        try (GantryRig rig = GantryRig.start(E2eSuite.AGENTS, "shell", List.of("--allow-private-networks"))) {
            String projectId = rig.client().get("/api/v2/project/" + GantryRig.SLUG).json().path("id").asText();
            List<String> destinations = new ArrayList<>();
            // A first, unmeasured run: otherwise the baseline pays for the JIT and cold agents (3x the p99).
            run(rig, projectId, destinations, pipelines / 4, false, out);
            long queued = queueBacklog(rig, out);
            Figures baseline = run(rig, projectId, destinations, pipelines, false, out);
            Figures faults = run(rig, projectId, destinations, pipelines, true, out);
            double healthyP99 = percentile(faults.healthyMs(), 99);
            double baselineP99 = percentile(baseline.healthyMs(), 99);
            out.printf(Locale.ROOT, "%n%-28s %12s %12s%n", "", "no faults", "500 + hang");
            out.printf(Locale.ROOT, "%-28s %9.0f ms %9.0f ms%n", "healthy delivery p50", percentile(
                    baseline.healthyMs(), 50), percentile(faults.healthyMs(), 50));
            out.printf(Locale.ROOT, "%-28s %9.0f ms %9.0f ms%n", "healthy delivery p99", baselineP99, healthyP99);
            out.printf(Locale.ROOT, "%-28s %9.0f ms %9.0f ms%n", "job start p95", percentile(baseline.jobStartMs(),
                    95), percentile(faults.jobStartMs(), 95));
            out.printf(Locale.ROOT, "%-28s %12s %12d%n", "calls to the 500 endpoint", "-", faults.failingCalls());
            out.printf(Locale.ROOT, "RESULT pipelines=%d healthy_p99_ms=%.0f healthy_p99_ms_baseline=%.0f ratio=%.2f "
                            + "failing_attempts_per_delivery=%.2f freshness_p99_ms=%.0f job_start_p95_ms=%.0f "
                            + "job_start_p95_ms_baseline=%.0f queued_backlog=%d%n", pipelines, healthyP99, baselineP99,
                    healthyP99 / Math.max(1, baselineP99), (double) faults.failingCalls() / pipelines, healthyP99,
                    percentile(faults.jobStartMs(), 95), percentile(baseline.jobStartMs(), 95),
                    Math.min(queued, queuedJobs(rig)));
            return 0;
        }
    }

    /**
     * Points the project's four webhooks and its Slack destination ({@code destinations}, the paths to change them by,
     * made on the first run) at fresh receivers, the last webhook failing and the Slack one hanging if {@code faulty},
     * and runs {@code pipelines} pipelines.
     */
    private static Figures run(GantryRig rig, String projectId, List<String> destinations, int pipelines,
                               boolean faulty, PrintStream out) throws Exception {
        GantryClient api = rig.client();
        List<Receiver> healthy = List.of(new Receiver(Mode.OK), new Receiver(Mode.OK), new Receiver(Mode.OK));
        Receiver failing = new Receiver(faulty ? Mode.FAIL : Mode.OK);
        Receiver hanging = new Receiver(faulty ? Mode.HANG : Mode.OK);
        List<Receiver> all = new ArrayList<>(healthy);
        all.add(failing);
        all.add(hanging);
        try {
            String slack = "/api/v2/project/" + GantryRig.SLUG + "/notifications";
            for (int i = 0; i < all.size(); i++) {
                String url = all.get(i).url();
                boolean isSlack = all.get(i) == hanging;
                GantryClient.Answer answer;
                if (i < destinations.size()) {
                    answer = api.put(destinations.get(i), JSON.writeValueAsString(Map.of("url", url)),
                            "application/json");
                } else if (isSlack) {
                    answer = api.post(slack, Map.of("kind", "slack", "name", "bench", "url", url, "when", "always"));
                } else {
                    answer = api.post("/api/v2/webhook", Map.of("name", "bench", "events",
                            List.of("workflow-completed"), "url", url, "verify-tls", true, "signing-secret", "bench",
                            "scope", Map.of("id", projectId, "type", "project")));
                }
                if (!answer.ok()) {
                    throw new IllegalStateException("pointing a destination at " + url + ": " + answer.message());
                }
                if (i >= destinations.size()) {
                    destinations.add((isSlack ? slack : "/api/v2/webhook") + "/" + answer.json().path("id").asText());
                }
            }
            double firstPipeline = rig.numbers("SELECT coalesce(max(number), 0) FROM gantry.pipeline")
                    .getFirst() + 1;
            long began = System.nanoTime();
            trigger(rig, pipelines, out);
            while (healthy.stream().anyMatch(r -> r.latenciesMs.size() < pipelines)) {
                if (System.nanoTime() - began > 600e9) {
                    throw new IllegalStateException("the healthy endpoints did not get their deliveries in 10 min");
                }
                Thread.sleep(100);
            }
            out.printf(Locale.ROOT, "%s: %d pipelines and their deliveries in %.0f s%n", faulty ? "faults"
                    : "no faults", pipelines, (System.nanoTime() - began) / 1e9);
            if (faulty) {
                Thread.sleep(2_000); // calls to the failing endpoint still under way are counted too
            }
            List<Double> healthyMs = new ArrayList<>();
            healthy.forEach(r -> healthyMs.addAll(r.latenciesMs));
            List<Double> jobStarts = rig.numbers("""
                    SELECT 1000 * extract(epoch FROM j.started_at - j.queued_at)
                    FROM gantry.job j JOIN gantry.workflow w ON w.id = j.workflow_id
                    JOIN gantry.pipeline p ON p.id = w.pipeline_id
                    WHERE p.number >= %d AND j.started_at IS NOT NULL""".formatted((long) firstPipeline));
            return new Figures(healthyMs, jobStarts, failing.calls.get());
        } finally {
            all.forEach(Receiver::close);
        }
    }

    /** Triggers the pipelines of the queued backlog and waits until their jobs are queued; answers how many are. */
    private static long queueBacklog(GantryRig rig, PrintStream out) throws Exception {
        rig.branch("backlog", BACKLOG_CONFIG);
        for (int i = 0; i < QUEUED_BACKLOG / BACKLOG_JOBS_EACH; i++) {
            GantryClient.Answer answer = rig.client().post("/api/v2/project/" + GantryRig.SLUG + "/pipeline",
                    Map.of("branch", "backlog"));
            if (!answer.ok()) {
                throw new IllegalStateException("trigger on backlog: " + answer.message());
            }
        }
        long began = System.nanoTime();
        long queued;
        while ((queued = queuedJobs(rig)) < QUEUED_BACKLOG) {
            if (System.nanoTime() - began > 300e9) {
                throw new IllegalStateException("only " + queued + " backlog jobs were queued in 5 min");
            }
            Thread.sleep(200);
        }
        out.printf(Locale.ROOT, "backlog: %d jobs queued that no agent can take, in %.0f s%n", queued,
                (System.nanoTime() - began) / 1e9);
        return queued;
    }

    private static long queuedJobs(GantryRig rig) throws Exception {
        return rig.numbers("SELECT count(*) FROM gantry.job WHERE status = 'queued'").getFirst().longValue();
    }

    /** Triggers {@code count} pipelines, at most {@link #BACKLOG} unfinished at once, and waits until all ended. */
    private static void trigger(GantryRig rig, int count, PrintStream out) throws Exception {
        GantryClient api = rig.client();
        long before = rig.finishedWorkflows();
        int triggered = 0;
        long done = 0;
        while (done < count) {
            for (; triggered < count && triggered - done < BACKLOG; triggered++) {
                GantryClient.Answer answer = api.post("/api/v2/project/" + GantryRig.SLUG + "/pipeline",
                        Map.of("branch", "main"));
                if (!answer.ok()) {
                    throw new IllegalStateException("trigger: " + answer.message());
                }
            }
            Thread.sleep(100);
            done = rig.finishedWorkflows() - before;
        }
    }

    private static double percentile(List<Double> values, int p) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? Double.NaN : E2eFigures.percentile(sorted, p);
    }

    private enum Mode { OK, FAIL, HANG }

    /**
     * An endpoint on 127.0.0.1 answering as its mode says; notes each accepted webhook delivery's latency (a Slack
     * message has no {@code workflow.stopped_at}: only its calls are counted).
     */
    private static final class Receiver implements AutoCloseable {
        private final Mode mode;
        private final HttpServer server;
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final CountDownLatch closed = new CountDownLatch(1);
        final List<Double> latenciesMs = new CopyOnWriteArrayList<>();
        final AtomicInteger calls = new AtomicInteger();

        Receiver(Mode mode) throws IOException {
            this.mode = mode;
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
            server.setExecutor(threads);
            server.createContext("/", this::handle);
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
        }

        private void handle(HttpExchange exchange) throws IOException {
            Instant arrived = Instant.now();
            calls.incrementAndGet();
            byte[] body = exchange.getRequestBody().readAllBytes();
            try (exchange) {
                switch (mode) {
                    case OK -> {
                        JsonNode stopped = JSON.readTree(body).path("workflow").path("stopped_at");
                        if (stopped.isTextual()) {
                            latenciesMs.add((double) (arrived.toEpochMilli()
                                    - Instant.parse(stopped.asText()).toEpochMilli()));
                        }
                        exchange.sendResponseHeaders(200, -1);
                    }
                    case FAIL -> exchange.sendResponseHeaders(500, -1);
                    case HANG -> closed.await();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            closed.countDown();
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
