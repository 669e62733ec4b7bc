package dev.gantry.server.ui;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gantry.server.auth.Principal;
import dev.gantry.server.project.ProjectSlug;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;

/**
 * The web UI's reads, each shaped for one page and answered from an index (a project's pipelines by number, a
 * pipeline's workflows, a workflow's jobs), so pages stay fast however many pipelines a project has. Visibility is the
 * caller's: a project of an organization the caller has no role in is not found. Thread-safe.
 */
public final class UiReads {
    static final int PAGE_SIZE = 25;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Jdbi jdbi;

    UiReads(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** A project, with its latest pipeline if it has one. */
    public record ProjectRow(UUID id, ProjectSlug slug, String vcsUrl, Long lastNumber, String lastStatus,
                             String lastBranch, Instant lastCreatedAt) {
    }

    /** One pipeline of a project's list. */
    public record PipelineRow(UUID id, long number, String branch, String tag, String revision,
                              String commitSubject, String actor, Instant createdAt, String status, Long durationMs) {
        /** The first 7 characters of the commit, as forges show it. */
        public String shortRevision() {
            return revision == null ? "" : revision.substring(0, Math.min(7, revision.length()));
        }
    }

    /** A page of pipelines, and the number to continue below, if there are more. */
    public record PipelinePage(List<PipelineRow> items, Long nextBefore) {
    }

    /** A workflow of a pipeline, with the latest attempt of each of its jobs. */
    public record WorkflowView(UUID id, String name, String status, Instant createdAt, Instant stoppedAt,
                               UUID rerunOf, List<JobNode> jobs) {
        public boolean terminal() {
            return List.of("success", "failed", "canceled", "not_run", "error").contains(status);
        }

        public boolean anyFailed() {
            return jobs.stream().anyMatch(j -> !j.status().equals("success") && j.terminal());
        }
    }

    /** A job in a workflow's graph; {@code requires} names the jobs it waits for. */
    public record JobNode(UUID id, long number, String name, String type, String status, List<String> requires,
                          Instant startedAt, Instant stoppedAt) {
        public boolean terminal() {
            return List.of("success", "failed", "canceled", "not_run", "infrastructure_fail").contains(status);
        }
    }

    /** The pipeline's header. */
    public record PipelineHeader(UUID id, ProjectSlug slug, long number, String state, String branch, String tag,
                                 String revision, String commitSubject, String actor, String triggerType,
                                 Instant createdAt, List<String> errors) {
    }

    /** Where each step's output starts, per node. */
    public record StepOffset(int node, int step, long offset) {
    }

    List<ProjectRow> projects(Principal caller) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.id, p.organization, p.name, p.vcs_url, l.number, l.state, l.branch, l.created_at,
                               l.statuses
                        FROM gantry.project p
                        LEFT JOIN LATERAL (
                            SELECT pl.number, pl.state, pl.branch, pl.created_at,
                                   (SELECT array_agg(w.status) FROM (
                                        SELECT DISTINCT ON (name) status FROM gantry.workflow
                                        WHERE pipeline_id = pl.id ORDER BY name, created_at DESC) w) AS statuses
                            FROM gantry.pipeline pl WHERE pl.project_id = p.id
                            ORDER BY pl.number DESC LIMIT 1) l ON true
                        WHERE :siteAdmin OR p.organization = ANY(:organizations)
                        ORDER BY p.organization, p.name
                        LIMIT 500
                        """)
                .bind("siteAdmin", caller.siteAdmin())
                .bind("organizations", caller.roles().keySet().toArray(String[]::new))
                .map((rs, c) -> new ProjectRow((UUID) rs.getObject("id"),
                        new ProjectSlug(rs.getString("organization"), rs.getString("name")), rs.getString("vcs_url"),
                        (Long) rs.getObject("number"), rs.getObject("number") == null ? null
                                : PipelineStatus.of(rs.getString("state"), strings(rs, "statuses"), false),
                        rs.getString("branch"), instant(rs, "created_at")))
                .list());
    }

    /** The project's id, if it exists. */
    Optional<UUID> projectId(ProjectSlug slug) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT id FROM gantry.project WHERE organization = :org AND name = :name")
                .bind("org", slug.organization()).bind("name", slug.name())
                .mapTo(UUID.class).findOne());
    }

    /** The number of pipeline {@code id}, which exists: a job's details name it. */
    long pipelineNumber(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT number FROM gantry.pipeline WHERE id = :id")
                .bind("id", id).mapTo(Long.class).one());
    }

    /** Pipelines numbered below {@code before} (all when null), newest first, on {@code branch} when given. */
    PipelinePage pipelines(UUID projectId, String branch, Long before) {
        List<PipelineRow> rows = jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.id, p.number, p.state, p.branch, p.tag, p.revision, p.commit_subject,
                               p.trigger_actor, p.created_at, w.statuses, w.started_at, w.stopped_at, w.running
                        FROM gantry.pipeline p
                        LEFT JOIN LATERAL (
                            SELECT array_agg(l.status) AS statuses, min(l.created_at) AS started_at,
                                   max(l.stopped_at) AS stopped_at, bool_or(l.stopped_at IS NULL) AS running
                            FROM (SELECT DISTINCT ON (name) status, created_at, stopped_at FROM gantry.workflow
                                  WHERE pipeline_id = p.id ORDER BY name, created_at DESC) l) w ON true
                        WHERE p.project_id = :projectId
                          AND (CAST(:branch AS text) IS NULL OR p.branch = :branch)
                          AND p.number < :before
                        ORDER BY p.number DESC
                        LIMIT :limit
                        """)
                .bind("projectId", projectId)
                .bind("branch", branch)
                .bind("before", before == null ? Long.MAX_VALUE : before)
                .bind("limit", PAGE_SIZE + 1)
                .map((rs, c) -> {
                    Instant started = instant(rs, "started_at");
                    Instant stopped = instant(rs, "stopped_at");
                    boolean running = rs.getBoolean("running");
                    Long duration = started != null && stopped != null && !running
                            ? stopped.toEpochMilli() - started.toEpochMilli() : null;
                    return new PipelineRow((UUID) rs.getObject("id"), rs.getLong("number"), rs.getString("branch"),
                            rs.getString("tag"), rs.getString("revision"), rs.getString("commit_subject"),
                            rs.getString("trigger_actor"), instant(rs, "created_at"),
                            PipelineStatus.of(rs.getString("state"), strings(rs, "statuses"), running), duration);
                })
                .list());
        if (rows.size() <= PAGE_SIZE) {
            return new PipelinePage(rows, null);
        }
        List<PipelineRow> page = List.copyOf(rows.subList(0, PAGE_SIZE));
        return new PipelinePage(page, page.getLast().number());
    }

    Optional<PipelineHeader> pipeline(ProjectSlug slug, long number) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT p.id, p.number, p.state, p.branch, p.tag, p.revision, p.commit_subject,
                               p.trigger_actor, p.trigger_type, p.created_at, p.errors
                        FROM gantry.pipeline p JOIN gantry.project pr ON pr.id = p.project_id
                        WHERE pr.organization = :org AND pr.name = :name AND p.number = :number
                        """)
                .bind("org", slug.organization()).bind("name", slug.name()).bind("number", number)
                .map((rs, c) -> new PipelineHeader((UUID) rs.getObject("id"), slug, rs.getLong("number"),
                        rs.getString("state"), rs.getString("branch"), rs.getString("tag"), rs.getString("revision"),
                        rs.getString("commit_subject"), rs.getString("trigger_actor"), rs.getString("trigger_type"),
                        instant(rs, "created_at"), errorMessages(rs.getString("errors"))))
                .findOne());
    }

    /** The pipeline's workflows, newest first, each with the latest attempt of each job. */
    List<WorkflowView> workflows(UUID pipelineId) {
        return jdbi.withHandle(h -> {
            List<WorkflowView> workflows = new ArrayList<>();
            h.createQuery("""
                            SELECT id, name, status, created_at, stopped_at, rerun_of FROM gantry.workflow
                            WHERE pipeline_id = :id ORDER BY created_at DESC, name
                            """)
                    .bind("id", pipelineId)
                    .map((rs, c) -> new WorkflowView((UUID) rs.getObject("id"), rs.getString("name"),
                            rs.getString("status"), instant(rs, "created_at"), instant(rs, "stopped_at"),
                            (UUID) rs.getObject("rerun_of"), new ArrayList<>()))
                    .forEach(workflows::add);
            for (WorkflowView workflow : workflows) {
                h.createQuery("""
                                SELECT * FROM (
                                    SELECT DISTINCT ON (name) id, number, name, type, status, requires, started_at,
                                           stopped_at
                                    FROM gantry.job WHERE workflow_id = :id
                                    ORDER BY name, attempt DESC) latest
                                ORDER BY number
                                """)
                        .bind("id", workflow.id())
                        .map((rs, c) -> new JobNode((UUID) rs.getObject("id"), rs.getLong("number"),
                                rs.getString("name"), rs.getString("type"), rs.getString("status"),
                                requires(rs.getString("requires")), instant(rs, "started_at"),
                                instant(rs, "stopped_at")))
                        .forEach(workflow.jobs()::add);
            }
            return workflows;
        });
    }

    List<StepOffset> stepOffsets(UUID jobId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT node_index, step_index, output_offset FROM gantry.job_step
                        WHERE (job_id, node_index) IN (SELECT * FROM gantry.result_nodes(:id))
                        ORDER BY node_index, step_index
                        """)
                .bind("id", jobId)
                .map((rs, c) -> new StepOffset(rs.getInt(1), rs.getInt(2), rs.getLong(3)))
                .list());
    }

    private static List<String> requires(String json) {
        try {
            Map<String, Object> map = JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
            return List.copyOf(map.keySet());
        } catch (java.io.IOException e) {
            throw new IllegalStateException("job.requires is not a JSON object: " + json, e);
        }
    }

    private static List<String> errorMessages(String json) {
        try {
            List<Map<String, Object>> errors = JSON.readValue(json, new TypeReference<>() { });
            return errors.stream().map(e -> String.valueOf(e.getOrDefault("message", e))).toList();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("pipeline.errors is not a JSON array: " + json, e);
        }
    }

    private static List<String> strings(ResultSet rs, String column) throws SQLException {
        java.sql.Array array = rs.getArray(column);
        return array == null ? List.of() : Arrays.asList((String[]) array.getArray());
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp time = rs.getTimestamp(column);
        return time == null ? null : time.toInstant();
    }
}
