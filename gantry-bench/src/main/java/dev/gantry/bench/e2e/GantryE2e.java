package dev.gantry.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.cli.client.GantryClient;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gantry's side of {@code bench e2e}, on a {@link GantryRig} with four agents of one small job each:
 *
 * <ul>
 *   <li><b>trigger → first step started</b> on warm agents: pipelines one at a time, each waited for, 200 ms apart;
 *       the time from just before the trigger request is sent to the arrival of the first answer of the job's
 *       details that shows its first step started, polled every 5 ms: the method the Buildbot peer uses
 *       ({@link BuildbotPeer}), whose REST times are whole seconds;</li>
 *   <li><b>sustained throughput</b>: a backlog of {@link #BACKLOG} unfinished pipelines kept triggered, as the peer
 *       keeps its builds, and the workflows that succeeded within a fixed window counted (in the database, five times
 *       a second).</li>
 * </ul>
 */
final class GantryE2e {
    static final int BACKLOG = 20;
    private static final Duration POLL = Duration.ofMillis(5);

    private GantryE2e() {
    }

    static E2eFigures run(GantryRig rig, boolean quick, Duration warmUp, PrintStream out) throws Exception {
        GantryClient api = rig.client();
        int warmUpPipelines = quick ? 3 : 5;
        int samples = quick ? 15 : 50;
        Duration window = Duration.ofSeconds(quick ? 20 : 60);
        List<Double> latencies = sequential(api, warmUpPipelines, samples).stream().map(Sample::startMs).toList();
        out.printf("gantry: %d sequential pipelines measured; now saturating for %d s, then a %d s window%n",
                samples, warmUp.toSeconds(), window.toSeconds());
        double perMinute = throughput(rig, api, warmUp, window);
        return E2eFigures.of(latencies, perMinute, window);
    }

    /** One pipeline run alone: ms from the trigger to its first step's start, and to its job's success. */
    record Sample(double startMs, double doneMs) {
    }

    /** {@code warmUp} pipelines, then {@code samples} measured ones, one at a time, 200 ms apart. */
    static List<Sample> sequential(GantryClient api, int warmUp, int samples) throws InterruptedException {
        for (int i = 0; i < warmUp; i++) {
            sample(api);
        }
        List<Sample> measured = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            measured.add(sample(api));
        }
        return measured;
    }

    /** Triggers one pipeline and waits for it to finish. */
    private static Sample sample(GantryClient api) throws InterruptedException {
        Instant sent = Instant.now();
        String pipeline = trigger(api);
        String jobPath = null;
        while (true) {
            if (jobPath == null) {
                jobPath = jobPath(api, pipeline);
            } else {
                JsonNode job = api.get(jobPath).json();
                if (job.at("/steps/0/actions/0/start_time").isTextual()) {
                    double latency = Duration.between(sent, Instant.now()).toNanos() / 1e6;
                    awaitEnd(api, jobPath);
                    double done = Duration.between(sent, Instant.now()).toNanos() / 1e6;
                    Thread.sleep(200);
                    return new Sample(latency, done);
                }
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private static void awaitEnd(GantryClient api, String jobPath) throws InterruptedException {
        while (true) {
            String status = api.get(jobPath).json().path("status").asText();
            if (status.equals("success")) {
                return;
            }
            if (!status.equals("running") && !status.equals("queued")) {
                throw new IllegalStateException("the no-op job " + jobPath + " ended " + status);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The job details path of the pipeline's one job, once it is planned and numbered; else null. */
    private static String jobPath(GantryClient api, String pipeline) {
        JsonNode workflows = api.get("/api/v2/pipeline/" + pipeline + "/workflow").json().path("items");
        if (workflows.isEmpty()) {
            return null;
        }
        JsonNode jobs = api.get("/api/v2/workflow/" + workflows.get(0).path("id").asText() + "/job").json()
                .path("items");
        return jobs.isEmpty() ? null : "/api/v2/project/" + GantryRig.SLUG + "/job/"
                + jobs.get(0).path("job_number").asLong();
    }

    private static String trigger(GantryClient api) {
        GantryClient.Answer triggered = api.post("/api/v2/project/" + GantryRig.SLUG + "/pipeline",
                Map.of("branch", "main"));
        if (!triggered.ok()) {
            throw new IllegalStateException("trigger: " + triggered.message());
        }
        return triggered.json().path("id").asText();
    }

    /** Pipelines per minute over {@code window}, with the backlog kept at {@link #BACKLOG}, after {@code warmUp}. */
    private static double throughput(GantryRig rig, GantryClient api, Duration warmUp, Duration window)
            throws Exception {
        long triggered = 0;
        long before = rig.succeededWorkflows();
        long warmUntil = System.nanoTime() + warmUp.toNanos();
        long end = warmUntil + window.toNanos();
        long startCount = -1;
        while (true) {
            long done = rig.succeededWorkflows() - before;
            long now = System.nanoTime();
            if (startCount < 0 && now >= warmUntil) {
                startCount = done;
            }
            if (now >= end) {
                return (done - startCount) * 60.0 / window.toSeconds();
            }
            for (; triggered - done < BACKLOG; triggered++) {
                trigger(api);
            }
            Thread.sleep(200);
        }
    }
}
