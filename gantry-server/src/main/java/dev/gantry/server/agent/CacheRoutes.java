package dev.gantry.server.agent;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.BlobStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Caches, per project and immutable per key: lookup by keys in order (exact, else the newest with the key as prefix),
 * download and upload. An upload is written completely to {@code caches/<project>/<sha256 of key>.tar.gz} before its
 * index row is inserted, so a lookup never finds half an archive. Thread-safe.
 */
final class CacheRoutes {
    /** The most characters of a key; CircleCI's keys are templates that rarely exceed a few hundred. */
    static final int MAX_KEY = 900;
    private static final int MAX_KEYS = 20;

    private final Jdbi jdbi;
    private final Leases leases;
    private final BlobStore blobs;
    private final InstantSource clock;

    CacheRoutes(Jdbi jdbi, Leases leases, BlobStore blobs, InstantSource clock) {
        this.jdbi = jdbi;
        this.leases = leases;
        this.blobs = blobs;
        this.clock = clock;
    }

    /** {@code GET /tasks/{job_id}/{node_index}/cache?key=K1&key=K2}: the first key that matches, or 404. */
    void lookup(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        List<String> keys = ctx.queryParams("key");
        if (keys.isEmpty() || keys.size() > MAX_KEYS) {
            throw ApiException.invalid("key", "send 1 to " + MAX_KEYS + " cache keys as ?key=K1&key=K2, tried in order");
        }
        keys.forEach(CacheRoutes::checkKey);
        UUID projectId = leases.require(task, lease).projectId();
        Optional<CacheDao.Entry> found = jdbi.withExtension(CacheDao.class, caches -> keys.stream()
                .map(key -> caches.match(projectId, key, likePrefix(key)))
                .flatMap(Optional::stream).findFirst());
        CacheDao.Entry entry = found.orElseThrow(() -> ApiException.notFound("no cache matches the keys " + keys));
        Json.respond(ctx, 200, Map.of("key", entry.key(), "size", entry.size()));
    }

    /** {@code GET /tasks/{job_id}/{node_index}/cache/{key}}: the archive, or 404. */
    void download(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        String key = checkKey(ctx.pathParam("key"));
        UUID projectId = leases.require(task, lease).projectId();
        jdbi.withExtension(CacheDao.class, caches -> caches.find(projectId, key))
                .orElseThrow(() -> ApiException.notFound("no cache " + ApiException.quote(key)));
        BlobStore.Blob blob = blobs.open(blob(projectId, key))
                .orElseThrow(() -> ApiException.notFound("cache " + ApiException.quote(key) + " has no archive"));
        ctx.contentType("application/gzip");
        ctx.header("Content-Length", Long.toString(blob.size()));
        ctx.result(blob.content());
    }

    /** {@code PUT /tasks/{job_id}/{node_index}/cache/{key}}: 201, or 409 when the key exists (the first one stays). */
    void upload(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        String key = checkKey(ctx.pathParam("key"));
        UUID projectId = leases.require(task, lease).projectId();
        if (jdbi.withExtension(CacheDao.class, caches -> caches.find(projectId, key)).isPresent()) {
            throw exists(key);
        }
        Optional<Long> written;
        try (InputStream body = AgentRequests.upload(ctx)) {
            written = blobs.putIfAbsent(blob(projectId, key), body);
        }
        if (written.isEmpty()) {
            // Another upload of the key won, or one crashed between its file and its row: a published file is
            // complete, so index it if nobody has.
            Optional<Long> existing = blobs.size(blob(projectId, key));
            if (existing.isPresent()) {
                index(projectId, key, existing.get());
            }
            throw exists(key);
        }
        index(projectId, key, written.get());
        Json.respond(ctx, 201, Map.of("key", key, "size", written.get()));
    }

    private void index(UUID projectId, String key, long size) {
        jdbi.useExtension(CacheDao.class, caches -> caches.insert(projectId, key, size,
                clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC)));
    }

    private static ApiException exists(String key) {
        return ApiException.conflict("cache " + ApiException.quote(key) + " exists; caches are immutable, the first "
                + "one saved under a key stays");
    }

    private static BlobName blob(UUID projectId, String key) {
        return BlobLayout.cache(projectId, key);
    }

    private static String checkKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY || key.indexOf('\0') >= 0) {
            throw ApiException.invalid("key", "a cache key must be 1 to " + MAX_KEY + " characters without NULs");
        }
        return key;
    }

    /** {@code key} as a LIKE pattern that matches it as a prefix: wildcards and the escape character escaped. */
    static String likePrefix(String key) {
        return key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }
}
