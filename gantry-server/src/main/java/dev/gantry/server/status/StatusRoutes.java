package dev.gantry.server.status;

import dev.gantry.server.auth.ApiAuthentication;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.http.JsonFields;
import dev.gantry.server.http.PathParams;
import io.javalin.http.Context;
import java.util.Set;

/**
 * The status page's routes besides the HTML page: {@value #JSON} and {@value #ATOM}, public (no token) and cacheable
 * for {@value #MAX_AGE_SECONDS} seconds, served from {@link StatusPage#current()} without touching the database; and
 * {@code POST /api/v2/status/incidents/{id}/notes}, a site admin's note on an incident. There is no route to hide,
 * edit or delete an incident. Thread-safe.
 */
public final class StatusRoutes {
    /** The JSON form's path. */
    public static final String JSON = "/status.json";
    /** The Atom feed's path. */
    public static final String ATOM = "/status.atom";
    /** The HTML page's path (the web UI serves it); the feed links to it. */
    public static final String PAGE = "/status";
    /** The admin's note route, under the API's token check. */
    public static final String NOTES = "/api/v2/status/incidents/{id}/notes";
    /** How long a client or proxy may reuse an answer: about one evaluation. */
    public static final int MAX_AGE_SECONDS = 10;
    static final String CACHE_CONTROL = "public, max-age=" + MAX_AGE_SECONDS;

    private final StatusPage page;
    private final ExternalUrl externalUrl;

    public StatusRoutes(StatusPage page, ExternalUrl externalUrl) {
        this.page = page;
        this.externalUrl = externalUrl;
    }

    /** {@code GET /status.json}. */
    public void json(Context ctx) {
        ctx.header("Cache-Control", CACHE_CONTROL);
        Json.respond(ctx, 200, StatusJson.of(page.current()));
    }

    /** {@code GET /status.atom}. */
    public void atom(Context ctx) {
        ctx.header("Cache-Control", CACHE_CONTROL);
        ctx.status(200).contentType(AtomFeed.CONTENT_TYPE).result(AtomFeed.write(page.current(),
                externalUrl.of(PAGE)));
    }

    /** {@code POST /api/v2/status/incidents/{id}/notes} with {@code {"message": "…"}}: 201 and the incident. */
    public void addNote(Context ctx) {
        var id = PathParams.uuid(ctx, "id");
        String message = JsonFields.of(JsonBody.readObject(ctx), Set.of("message")).requiredString("message");
        Incident noted = page.addNote(id, ApiAuthentication.principal(ctx).login(), message);
        Json.respond(ctx, 201, StatusJson.of(noted));
    }
}
