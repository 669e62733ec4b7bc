package dev.gantry.server.orb;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.config.orb.OrbResolver.OrbSource;
import dev.gantry.config.orb.OrbVersions;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The orb store's API: {@code GET /api/v2/orbs} (every orb), {@code GET /api/v2/orbs/{ns}/{name}} (its versions),
 * {@code GET /api/v2/orbs/{ns}/{name}/{version}} (one version's source; a reference such as {@code 5} or
 * {@code volatile} resolves as in a config) and {@code PUT} of the same path with the packed source as the body
 * (201 new, 200 the same again or a dev version replaced, 409 a release with another source). Thread-safe.
 */
public final class OrbRoutes {
    /** The origin a PUT records: {@code ?origin=imported} from {@code gantry orb import}, else published. */
    static final String ORIGIN = "origin";

    private final OrbStore store;

    public OrbRoutes(OrbStore store) {
        this.store = store;
    }

    public void list(Context ctx) {
        ArrayNode items = Json.MAPPER.createArrayNode();
        for (OrbDao.Summary orb : store.orbs()) {
            List<String> versions = store.versions(orb.namespace(), orb.name());
            items.addObject().put("name", orb.namespace() + "/" + orb.name())
                    .put("versions", orb.versions())
                    .put("latest_version", OrbVersions.choose(versions, "volatile").orElse(null));
        }
        ObjectNode body = Json.MAPPER.createObjectNode();
        body.set("items", items);
        body.putNull("next_page_token");
        Json.respond(ctx, 200, body);
    }

    public void versions(Context ctx) {
        String namespace = ctx.pathParam("namespace");
        String name = ctx.pathParam("name");
        OrbStore.checkName(namespace, name);
        List<String> versions = store.versions(namespace, name);
        if (versions.isEmpty()) {
            throw ApiException.notFound("no orb " + namespace + "/" + name + " in the orb store");
        }
        ObjectNode body = Json.MAPPER.createObjectNode().put("name", namespace + "/" + name);
        ArrayNode items = body.putArray("versions");
        for (String version : newestFirst(versions)) {
            StoredOrb orb = store.find(namespace, name, version).orElseThrow();
            items.addObject().put("version", version).put("origin", orb.origin())
                    .put("created_at", Json.time(orb.created()))
                    .put("sha256", HexFormat.of().formatHex(orb.sha256()));
        }
        Json.respond(ctx, 200, body);
    }

    /** Releases newest first, then dev versions. */
    private static List<String> newestFirst(List<String> versions) {
        return java.util.stream.Stream.concat(versions.reversed().stream().filter(OrbVersions::isRelease),
                versions.stream().filter(v -> !OrbVersions.isRelease(v))).toList();
    }

    /** One version; the reference in the path is resolved as a config's would be, the upstream registry included. */
    public void get(Context ctx) {
        String namespace = ctx.pathParam("namespace");
        String name = ctx.pathParam("name");
        String wanted = ctx.pathParam("version");
        OrbStore.checkName(namespace, name);
        String reference = namespace + "/" + name + "@" + wanted;
        if (!OrbVersions.isReference(wanted)) {
            throw ApiException.invalid("version", "an orb reference's version is X.Y.Z, X.Y, X, volatile or "
                    + "dev:LABEL, got " + ApiException.quote(wanted));
        }
        OrbSource source;
        try {
            source = store.resolve(namespace, name, wanted).orElseThrow(() -> ApiException.notFound(
                    "orb " + reference + " is not in " + store.describe()));
        } catch (UpstreamRegistry.UnavailableException e) {
            throw ApiException.unavailable(e.getMessage());
        }
        StoredOrb orb = store.find(namespace, name, source.version()).orElseThrow();
        Json.respond(ctx, 200, Json.MAPPER.createObjectNode().put("name", orb.fullName())
                .put("reference", reference).put("version", orb.version()).put("origin", orb.origin())
                .put("created_at", Json.time(orb.created()))
                .put("sha256", HexFormat.of().formatHex(orb.sha256())).put("source", orb.source()));
    }

    /** Publishes the body, the orb's packed YAML, as this version. */
    public void put(Context ctx) {
        String namespace = ctx.pathParam("namespace");
        String name = ctx.pathParam("name");
        String version = ctx.pathParam("version");
        String originParam = ctx.queryParam(ORIGIN);
        OrbStore.Origin origin = switch (originParam == null ? "published" : originParam.toLowerCase(Locale.ROOT)) {
            case "published" -> OrbStore.Origin.PUBLISHED;
            case "imported" -> OrbStore.Origin.IMPORTED;
            default -> throw ApiException.invalid(ORIGIN, "origin is published or imported, got "
                    + ApiException.quote(originParam));
        };
        byte[] body = ctx.bodyAsBytes();
        if (body.length == 0) {
            throw ApiException.badRequest("the body is the orb's packed source (YAML); it is empty");
        }
        String source = new String(body, StandardCharsets.UTF_8);
        OrbStore.Outcome outcome = store.publish(namespace, name, version, source, origin);
        StoredOrb orb = store.find(namespace, name, version).orElseThrow();
        Json.respond(ctx, outcome == OrbStore.Outcome.CREATED ? 201 : 200, Json.MAPPER.createObjectNode()
                .put("name", orb.fullName()).put("version", orb.version()).put("origin", orb.origin())
                .put("outcome", outcome.name().toLowerCase(Locale.ROOT))
                .put("sha256", HexFormat.of().formatHex(orb.sha256())));
    }
}
