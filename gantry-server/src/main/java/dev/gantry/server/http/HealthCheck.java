package dev.gantry.server.http;

import io.javalin.http.Context;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code GET /healthz}, for load balancers and service managers, with no token: 200 {@code {"status": "ok"}} when
 * this server can run a query on its database within {@value #TIMEOUT_SECONDS} seconds, else the 503 with
 * {@code Retry-After} that {@link ErrorResponses} gives any request the database cannot take. A balancer in front of
 * several servers takes out of rotation the one that answers 503 or does not answer (a paused process). Thread-safe.
 */
public final class HealthCheck {
    static final int TIMEOUT_SECONDS = 2;

    private final Jdbi jdbi;

    public HealthCheck(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    public void check(Context ctx) {
        jdbi.useHandle(h -> h.createQuery("SELECT 1").setQueryTimeout(TIMEOUT_SECONDS).mapTo(Integer.class).one());
        ctx.header("Cache-Control", "no-store");
        Json.respond(ctx, 200, Map.of("status", "ok"));
    }
}
