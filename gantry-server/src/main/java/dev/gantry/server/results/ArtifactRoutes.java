package dev.gantry.server.results;

import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.ExternalUrl;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.ListJson;
import dev.gantry.server.project.ProjectRoutes;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.BlobStore;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.net.URI;
import java.net.URLConnection;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code GET /api/v2/project/{slug}/{job_number}/artifacts} (CircleCI's list: path, node index, download URL on the
 * server's external URL) and the download behind each URL, {@code …/artifacts/{node}/{path…}}, with a content type
 * guessed from the name. A download is always an attachment in a sandbox ({@code Content-Disposition: attachment},
 * {@code Content-Security-Policy: sandbox}, {@code X-Content-Type-Options: nosniff}): an artifact is whatever a job
 * wrote, and an HTML or SVG file rendered in the server's origin could act with the reader's credentials there.
 * When the blob store hands out direct downloads (S3 with {@code GANTRY_S3_PRESIGNED_DOWNLOADS}), a download is a 302
 * to a presigned URL of the bucket that answers with the same type and disposition. Thread-safe.
 */
final class ArtifactRoutes {
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("log", "text/plain; charset=utf-8"),
            Map.entry("json", "application/json"), Map.entry("xml", "application/xml"),
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
            Map.entry("css", "text/css"), Map.entry("js", "text/javascript"), Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("gz", "application/gzip"), Map.entry("tgz", "application/gzip"),
            Map.entry("zip", "application/zip"), Map.entry("pdf", "application/pdf"),
            Map.entry("csv", "text/csv; charset=utf-8"), Map.entry("md", "text/markdown; charset=utf-8"));

    private final Jdbi jdbi;
    private final JobLookup jobs;
    private final BlobStore blobs;
    private final ExternalUrl externalUrl;

    ArtifactRoutes(Jdbi jdbi, JobLookup jobs, BlobStore blobs, ExternalUrl externalUrl) {
        this.jdbi = jdbi;
        this.jobs = jobs;
        this.blobs = blobs;
        this.externalUrl = externalUrl;
    }

    void list(Context ctx) {
        JobResultsDao.Job job = jobs.find(ctx, "job_number");
        String base = "/api/v2/project/" + ProjectRoutes.slugOf(ctx) + "/" + ctx.pathParam("job_number")
                + "/artifacts/";
        ResultPages.Position from = ResultPages.requested(ctx, "");
        List<JobResultsDao.Artifact> page = jdbi.withExtension(JobResultsDao.class, dao -> dao.artifacts(job.id(),
                from.node(), from.key(), ResultPages.SIZE));
        var items = page.stream().map(a -> {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("path", a.path());
            item.put("node_index", a.nodeIndex());
            item.put("url", externalUrl.of(base + a.nodeIndex() + "/" + encode(a.path())));
            return item;
        }).toList();
        Json.respond(ctx, 200, new ListJson<>(items, page.isEmpty() ? null : ResultPages.next(page,
                page.getLast().nodeIndex(), page.getLast().path()).orElse(null)));
    }

    void download(Context ctx) throws IOException {
        JobResultsDao.Job job = jobs.find(ctx, "job_number");
        send(ctx, job.id(), ctx.pathParam("node"), ctx.pathParam("path"));
    }

    /** Answers {@code ctx} with the artifact at {@code pathText} of node {@code nodeText} of the job; 404 if none. */
    void send(Context ctx, UUID jobId, String nodeText, String pathText) throws IOException {
        BlobName path = BlobName.parse(pathText).orElseThrow(() -> ApiException.invalid("path",
                "an artifact path is " + BlobName.RULE + ", got " + ApiException.quote(pathText)));
        Optional<UUID> owner = nodeText.matches("\\d{1,9}") ? jdbi.withExtension(JobResultsDao.class,
                dao -> dao.artifactOwner(jobId, Integer.parseInt(nodeText), path.toString())) : Optional.empty();
        if (owner.isEmpty()) {
            throw ApiException.notFound("no artifact " + ApiException.quote(pathText) + " on node "
                    + ApiException.quote(nodeText));
        }
        // Under the job that ran the node: a retry's carried node shows the artifacts of the attempt that ran it.
        BlobName name = BlobLayout.artifact(owner.get(), Integer.parseInt(nodeText), path);
        Optional<URI> direct = blobs.directDownload(name, contentType(path.fileName()), attachment(path.fileName()));
        if (direct.isPresent()) {
            // From the bucket's origin, not the server's: what the file could do there touches no Gantry credential.
            blobs.size(name).orElseThrow(() -> noFile(pathText));
            ctx.header("Cache-Control", "no-store"); // the URL expires
            ctx.redirect(direct.get().toString(), HttpStatus.FOUND);
            return;
        }
        BlobStore.Blob blob = blobs.open(name).orElseThrow(() -> noFile(pathText));
        ctx.contentType(contentType(path.fileName()));
        // Whatever the type: saved, not shown, and if shown anyway (a browser that ignores the disposition), not
        // sniffed into something else and without scripts, forms or the server's origin.
        ctx.header("Content-Disposition", attachment(path.fileName()));
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        // No Content-Length: Javalin may compress a text artifact for a client that accepts gzip.
        ctx.result(blob.content());
    }

    private static ApiException noFile(String pathText) {
        return ApiException.notFound("artifact " + ApiException.quote(pathText) + " has no file");
    }

    /** What an artifact may do when a browser shows it anyway: nothing (no scripts, no origin, no loads). */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox";

    /**
     * {@code attachment} with the file's name (RFC 6266): an ASCII fallback in {@code filename}, where anything but
     * printable ASCII, quotes and backslashes becomes {@code _}, and the exact name in {@code filename*}.
     */
    static String attachment(String fileName) {
        StringBuilder fallback = new StringBuilder();
        fileName.chars().forEach(c -> fallback.append(c >= 0x20 && c < 0x7F && c != '"' && c != '\\' ? (char) c
                : '_'));
        return "attachment; filename=\"" + fallback + "\"; filename*=UTF-8''"
                + URLEncoder.encode(fileName, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A");
    }

    /** The content type for a file name: a known extension, else Java's guess, else octet-stream. */
    static String contentType(String fileName) {
        int dot = fileName.lastIndexOf('.');
        String known = dot < 0 ? null : TYPES.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
        if (known != null) {
            return known;
        }
        String guessed = URLConnection.guessContentTypeFromName(fileName);
        return guessed != null ? guessed : "application/octet-stream";
    }

    /** Each segment percent-encoded, the slashes between them kept. */
    static String encode(String path) {
        return Arrays.stream(path.split("/")).map(s -> URLEncoder.encode(s, StandardCharsets.UTF_8)
                .replace("+", "%20")).collect(Collectors.joining("/"));
    }
}
