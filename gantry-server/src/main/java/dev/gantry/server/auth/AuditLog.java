package dev.gantry.server.auth;

import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.sql.Timestamp;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jdbi.v3.core.Jdbi;

/**
 * One row for every state-changing call under {@code /api/v2} (any method but GET, HEAD and OPTIONS), refused ones
 * too: who (the caller's login; {@code anonymous} without a valid token), what (method, path, status), when, from
 * where (the client's address), and the organization it acted in when there was one. Org admins read their
 * organization's rows, site admins all. Thread-safe.
 */
public final class AuditLog {
    private static final Set<HandlerType> READS = Set.of(HandlerType.GET, HandlerType.HEAD, HandlerType.OPTIONS);
    static final int PAGE = 200;

    private final Jdbi jdbi;
    private final InstantSource clock;

    public AuditLog(Jdbi jdbi, InstantSource clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** The after-handler: records the call if it could change state. */
    public void record(Context ctx) {
        if (READS.contains(ctx.method())) {
            return;
        }
        Principal caller = ApiAuthentication.caller(ctx);
        String actor = caller != null ? caller.login()
                : ApiAuthentication.OPEN.contains(ctx.path()) ? "continuation-key" : "anonymous";
        insert(ctx, actor, ctx.attribute(Access.ORGANIZATION));
    }

    /** Records a change the web UI made for {@code caller} in {@code organization}, with the request's outcome. */
    public void recordPage(Context ctx, Principal caller, String organization) {
        insert(ctx, caller.login(), organization);
    }

    private void insert(Context ctx, String actor, String organization) {
        jdbi.useHandle(h -> h.createUpdate("""
                        INSERT INTO gantry.audit_log (at, actor, organization, method, path, status, remote_address)
                        VALUES (:at, :actor, :organization, :method, :path, :status, :remote)""")
                .bind("at", clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC))
                .bind("actor", actor).bind("organization", organization).bind("method", ctx.method().name())
                .bind("path", ctx.path()).bind("status", ctx.statusCode()).bind("remote", ctx.ip()).execute());
    }

    /** {@code GET /api/v2/organization/{org}/audit-log}: the organization's newest {@value #PAGE} rows. */
    public void ofOrganization(Context ctx) {
        respond(ctx, jdbi.withHandle(h -> h.createQuery("""
                        SELECT at, actor, organization, method, path, status, remote_address FROM gantry.audit_log
                        WHERE organization = :organization ORDER BY id DESC LIMIT :limit""")
                .bind("organization", ctx.pathParam("org")).bind("limit", PAGE).mapToMap().list()));
    }

    /** {@code GET /api/v2/audit-log}: every organization's and the server's newest {@value #PAGE} rows. */
    public void all(Context ctx) {
        respond(ctx, jdbi.withHandle(h -> h.createQuery("""
                        SELECT at, actor, organization, method, path, status, remote_address FROM gantry.audit_log
                        ORDER BY id DESC LIMIT :limit""").bind("limit", PAGE).mapToMap().list()));
    }

    private static void respond(Context ctx, List<Map<String, Object>> rows) {
        List<Map<String, Object>> items = rows.stream().map(row -> {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("at", Json.time(((Timestamp) row.get("at")).toInstant()));
            item.put("actor", row.get("actor"));
            item.put("organization", row.get("organization"));
            item.put("method", row.get("method"));
            item.put("path", row.get("path"));
            item.put("status", row.get("status"));
            item.put("remote_address", row.get("remote_address"));
            return item;
        }).toList();
        Json.respond(ctx, 200, Json.whole(items));
    }
}
