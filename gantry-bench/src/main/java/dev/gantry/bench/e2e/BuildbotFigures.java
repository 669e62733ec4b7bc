package dev.gantry.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * What the Buildbot peer measured: the JSON line {@code buildbot_peer.py} prints (see it for the exact method).
 *
 * @param p50StartMs        trigger→first step started, median, ms: from the wall clock just before the trigger POST
 *                          to the first poll of the REST API that shows the step running {@code true} started
 * @param p95StartMs        the same, 95th percentile (nearest rank)
 * @param buildsPerMin      builds finished per minute while the builder was kept saturated
 * @param builds            builds finished in the throughput window
 * @param windowS           the throughput window, seconds
 * @param method            the method in one sentence, for the report
 * @param latencyN          builds behind the latency percentiles
 * @param maxStartMs        the slowest of them
 * @param p50StartMsMaster  the median again, with the start taken from the master's own clock (its "step started"
 *                          event) instead of polling; NaN if the master did not log it
 * @param p95StartMsMaster  the 95th percentile from the master's clock; NaN if absent
 * @param minPending        the fewest builds pending (not running) seen during the window: the backlog never ran dry
 *                          while this is above 0
 * @param masterCpuPct      CPU the master used during the window, % of one core (it is one Python process)
 * @param workersCpuPct     CPU the four workers and their {@code bash -c true} used during the window, % of one core
 * @param cpuMsPerBuild     master and workers' CPU in the window per build finished in it, ms; NaN if none finished
 * @param workers           workers attached to the builder, one build each at a time
 * @param buildbotVersion   the Buildbot version that ran
 */
public record BuildbotFigures(double p50StartMs, double p95StartMs, double buildsPerMin, long builds, int windowS,
                              String method, int latencyN, double maxStartMs, double p50StartMsMaster,
                              double p95StartMsMaster, int minPending, int masterCpuPct, int workersCpuPct,
                              double cpuMsPerBuild, int workers, String buildbotVersion) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Parses the driver's JSON line. Throws if one of the five figures the benchmark needs is missing. */
    static BuildbotFigures parse(String line) throws IOException {
        JsonNode n = JSON.readTree(line);
        for (String required : new String[] {"p50_start_ms", "p95_start_ms", "builds_per_min", "builds",
                "window_s"}) {
            if (!n.path(required).isNumber()) {
                throw new IOException("the Buildbot driver's result has no number '" + required + "': " + line);
            }
        }
        return new BuildbotFigures(n.get("p50_start_ms").asDouble(), n.get("p95_start_ms").asDouble(),
                n.get("builds_per_min").asDouble(), n.get("builds").asLong(), n.get("window_s").asInt(),
                n.path("method").asText(""), n.path("latency_n").asInt(0), number(n, "max_start_ms"),
                number(n, "p50_start_ms_master"), number(n, "p95_start_ms_master"), n.path("min_pending").asInt(-1),
                n.path("master_cpu_pct").asInt(-1), n.path("workers_cpu_pct").asInt(-1),
                number(n, "cpu_ms_per_build"), n.path("workers").asInt(0),
                n.path("buildbot").asText("unknown"));
    }

    private static double number(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isNumber() ? v.asDouble() : Double.NaN;
    }
}
