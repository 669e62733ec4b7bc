package dev.gantry.server;

import io.javalin.http.Context;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The server's meters, for Prometheus at {@code GET /metrics} (behind the admin token, which Prometheus sends with
 * {@code authorization: {credentials_file: $GANTRY_HOME/admin-token}}): the durable queue's (docs/queue.md), and the
 * JVM's memory, threads, CPU and uptime. A registry per server, not the global one, so a closed server's gauges do
 * not linger.
 */
final class ServerMetrics {
    /** The text format Prometheus scrapes. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private ServerMetrics() {
    }

    static PrometheusMeterRegistry registry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }

    /** {@code GET /metrics}. */
    static void scrape(PrometheusMeterRegistry registry, Context ctx) {
        ctx.contentType(CONTENT_TYPE).result(registry.scrape());
    }
}
