package dev.gantry.server.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.retention.RetentionSettings;
import dev.gantry.server.storage.BlobLayout;
import dev.gantry.server.storage.BlobName;
import dev.gantry.server.storage.BlobStore;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * Workspace layers: a job persists a layer ({@code workspaces/<workflow>/<layer>.tar.gz}); a job that attaches the
 * workspace gets the layers of the jobs it requires, transitively, oldest first. A job carried over by a rerun counts
 * as the job it carried, so its original's layers are used. If retention deleted one of those layers, the listing is
 * 410: part of a workspace is worse than none. Thread-safe.
 */
final class WorkspaceRoutes {
    /** Follows {@code copied_from} no further than this: a longer chain is a bug, not a rerun history. */
    private static final int MAX_COPY_CHAIN = 100;

    private final Jdbi jdbi;
    private final Leases leases;
    private final BlobStore blobs;
    private final InstantSource clock;

    WorkspaceRoutes(Jdbi jdbi, Leases leases, BlobStore blobs, InstantSource clock) {
        this.jdbi = jdbi;
        this.leases = leases;
        this.blobs = blobs;
        this.clock = clock;
    }

    /** {@code PUT /tasks/{job_id}/{node_index}/workspace}: stores a layer; 201 with its id. */
    void upload(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        UUID workflowId = leases.require(task, lease).workflowId();
        UUID layer = UUID.randomUUID();
        long size;
        try (InputStream body = AgentRequests.upload(ctx)) {
            size = blobs.put(blob(workflowId, layer), body);
        }
        jdbi.useTransaction(h -> {
            leases.require(h, task, lease);
            h.attach(WorkspaceDao.class).insert(layer, workflowId, task.jobId(), task.nodeIndex(), size,
                    clock.instant().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC));
        });
        Json.respond(ctx, 201, Map.of("id", layer.toString(), "size", size));
    }

    /** {@code GET /tasks/{job_id}/{node_index}/workspace}: the layers to extract, oldest first. */
    void list(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        leases.require(task, lease);
        List<WorkspaceDao.Layer> layers = jdbi.withExtension(WorkspaceDao.class, dao -> {
            List<UUID> sources = sources(dao, task.jobId());
            return sources.isEmpty() ? List.<WorkspaceDao.Layer>of() : dao.layersOf(sources);
        });
        Optional<WorkspaceDao.Layer> expired = layers.stream().filter(l -> l.expiredAt() != null).findFirst();
        if (expired.isPresent()) {
            WorkspaceDao.Layer gone = expired.get();
            throw ApiException.gone("the workspace expired: a layer persisted at " + Json.time(gone.createdAt()
                    .toInstant()) + " was deleted at " + Json.time(gone.expiredAt().toInstant()) + ", past its "
                    + "retention (" + RetentionSettings.WORKSPACES_VARIABLE + "); rerun the workflow from the start "
                    + "to persist it again");
        }
        Json.respond(ctx, 200, Map.of("layers", layers.stream()
                .map(l -> Map.of("id", l.id().toString(), "size", l.size())).toList()));
    }

    /** {@code GET /tasks/{job_id}/{node_index}/workspace/{layer_id}}: a layer's bytes. */
    void download(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        UUID layerId = AgentRequests.pathId(ctx, "layer_id", "workspace layer");
        leases.require(task, lease);
        WorkspaceDao.Layer layer = jdbi.withExtension(WorkspaceDao.class, dao -> dao.find(layerId))
                .orElseThrow(() -> ApiException.notFound("no workspace layer " + layerId));
        BlobStore.Blob blob = blobs.open(blob(layer.workflowId(), layerId))
                .orElseThrow(() -> ApiException.notFound("workspace layer " + layerId + " has no archive"));
        ctx.contentType("application/gzip");
        ctx.header("Content-Length", Long.toString(blob.size()));
        ctx.result(blob.content());
    }

    private static BlobName blob(UUID workflowId, UUID layerId) {
        return BlobLayout.workspaceLayer(workflowId, layerId);
    }

    /**
     * The jobs whose layers {@code jobId} sees: those it requires, transitively, by name within its workflow (the
     * latest attempt of each name), each replaced by the original it was copied from.
     */
    private static List<UUID> sources(WorkspaceDao dao, UUID jobId) {
        Map<String, WorkspaceDao.JobNode> byName = new HashMap<>();
        WorkspaceDao.JobNode self = null;
        for (WorkspaceDao.JobNode job : dao.jobsOfWorkflowOf(jobId)) {
            byName.merge(job.name(), job, (a, b) -> a.attempt() >= b.attempt() ? a : b);
            if (job.id().equals(jobId)) {
                self = job;
            }
        }
        if (self == null) {
            return List.of();
        }
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> pending = new ArrayDeque<>(requiredNames(self));
        while (!pending.isEmpty()) {
            String name = pending.pop();
            WorkspaceDao.JobNode required = byName.get(name);
            if (required != null && seen.add(name)) {
                pending.addAll(requiredNames(required));
            }
        }
        List<UUID> sources = new ArrayList<>();
        for (String name : seen) {
            sources.add(original(dao, byName.get(name)));
        }
        return sources;
    }

    private static UUID original(WorkspaceDao dao, WorkspaceDao.JobNode job) {
        UUID id = job.id();
        UUID from = job.copiedFrom();
        for (int hops = 0; from != null; hops++) {
            if (hops == MAX_COPY_CHAIN) {
                throw new IllegalStateException("job " + job.id() + "'s copied_from chain is longer than "
                        + MAX_COPY_CHAIN);
            }
            id = from;
            from = dao.copiedFrom(id).orElse(null);
        }
        return id;
    }

    private static List<String> requiredNames(WorkspaceDao.JobNode job) {
        try {
            JsonNode requires = Json.MAPPER.readTree(job.requires());
            List<String> names = new ArrayList<>();
            requires.fieldNames().forEachRemaining(names::add);
            return names;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("job " + job.id() + "'s requires is not JSON", e);
        }
    }
}
