package dev.gantry.server;

import com.zaxxer.hikari.HikariDataSource;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The server's meters, for Prometheus at {@code GET /metrics} (behind the admin token, which Prometheus sends with
 * {@code authorization: {credentials_file: $GANTRY_HOME/admin-token}}): the durable queue's (docs/queue.md), the HTTP
 * API's requests, the connection pool's, and the JVM's memory, garbage collections, threads, classes, CPU, open files
 * and uptime. A registry per server, not the global one, so a closed server's gauges do not linger.
 */
final class ServerMetrics implements AutoCloseable {
    /** The text format Prometheus scrapes. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    /** The {@code uri} tag of a request no route matched, so that probes of random paths add no series. */
    static final String NO_ROUTE = "NOT_FOUND";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** Listens to the JVM's collection notifications until closed. */
    private final JvmGcMetrics gc = new JvmGcMetrics();

    ServerMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Reports the pool's connections (active, idle, pending threads), timeouts and acquire times, if {@code dataSource}
     * is a HikariCP pool that reports to no registry yet (HikariCP takes one registry per pool, once): waiting
     * threads and timeouts are how an exhausted pool shows itself.
     */
    void bindPool(DataSource dataSource) {
        if (dataSource instanceof HikariDataSource pool && pool.getMetricRegistry() == null
                && pool.getMetricsTrackerFactory() == null) {
            pool.setMetricRegistry(registry);
        }
    }

    /**
     * Times a finished request as {@code http.server.requests}, tagged with its method, its route's template (not the
     * path, so that ids add no series) and its status.
     */
    void recordRequest(Context ctx, float millis) {
        Endpoint route = ctx.endpoints().matchedHttpEndpoint();
        Timer.builder("http.server.requests")
                .tag("method", ctx.method().name())
                .tag("uri", route == null ? NO_ROUTE : route.path)
                .tag("status", Integer.toString(ctx.status().getCode()))
                .register(registry)
                .record((long) (millis * 1_000_000), TimeUnit.NANOSECONDS);
    }

    /** {@code GET /metrics}. */
    void scrape(Context ctx) {
        ctx.contentType(CONTENT_TYPE).result(registry.scrape());
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
