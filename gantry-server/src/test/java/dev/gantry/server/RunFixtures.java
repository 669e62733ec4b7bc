package dev.gantry.server;

import dev.gantry.server.http.Json;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * Rows of a running pipeline written straight with SQL, standing in for the plan builder and the orchestrator: a
 * project, a pipeline, workflows, jobs and their queued tasks.
 */
final class RunFixtures {
    private final Jdbi jdbi;
    private final AtomicLong clock = new AtomicLong();

    final UUID projectId = UUID.randomUUID();
    final UUID pipelineId = UUID.randomUUID();

    /** Makes the project {@code acme/app} and one pipeline of it. */
    RunFixtures(Jdbi jdbi) {
        this(jdbi, "acme");
    }

    /** Makes the project {@code organization/app} and one pipeline of it. */
    RunFixtures(Jdbi jdbi, String organization) {
        this.jdbi = jdbi;
        jdbi.useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.project (id, organization, name, vcs_url, created_at, last_pipeline_number)
                    VALUES (?, ?, 'app', '/srv/git/app', now(), 1)""", projectId, organization);
            h.execute("""
                    INSERT INTO gantry.pipeline (id, project_id, number, state, branch, revision, parameters,
                                                 request_hash, created_at, updated_at)
                    VALUES (?, ?, 1, 'created', 'main', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678',
                            '{"deploy": true}', '\\x00', now(), now())""", pipelineId, projectId);
        });
    }

    UUID workflow(String name) {
        UUID id = UUID.randomUUID();
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO gantry.workflow (id, pipeline_id, name, status, created_at)
                VALUES (?, ?, ?, 'running', now())""", id, pipelineId, name));
        return id;
    }

    /** A job builder in {@code workflowId}: class medium, one node, queued with its tasks. */
    Job job(UUID workflowId, String name) {
        return new Job(workflowId, name);
    }

    final class Job {
        private final UUID workflowId;
        private final String name;
        private String resourceClass = "medium";
        private int cpu = 2;
        private int memoryMb = 4096;
        private int parallelism = 1;
        private String status = "queued";
        private String requires = "{}";
        private UUID copiedFrom;
        private boolean cancelRequested;
        private Boolean queuedTasks;
        private List<String> contexts = List.of();

        private Job(UUID workflowId, String name) {
            this.workflowId = workflowId;
            this.name = name;
        }

        Job resourceClass(String resourceClass, int cpu, int memoryMb) {
            this.resourceClass = resourceClass;
            this.cpu = cpu;
            this.memoryMb = memoryMb;
            return this;
        }

        Job parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** The job's status; its tasks are queued only when it is queued. */
        Job status(String status) {
            this.status = status;
            return this;
        }

        /** Names of the jobs it requires, each accepting success. */
        Job requires(String... names) {
            StringBuilder json = new StringBuilder("{");
            for (int i = 0; i < names.length; i++) {
                json.append(i == 0 ? "" : ", ").append('"').append(names[i]).append("\": [\"success\"]");
            }
            this.requires = json.append('}').toString();
            return this;
        }

        /** Whether its tasks are inserted queued; by default when the job is queued. */
        Job queuedTasks(boolean queuedTasks) {
            this.queuedTasks = queuedTasks;
            return this;
        }

        /** The contexts the job names, in its spec. */
        Job contexts(String... contexts) {
            this.contexts = List.of(contexts);
            return this;
        }

        Job copiedFrom(UUID original) {
            this.copiedFrom = original;
            return this;
        }

        Job cancelRequested() {
            this.cancelRequested = true;
            return this;
        }

        /** Inserts the job and, if queued, its tasks, each queued a microsecond after the previous fixture's. */
        UUID insert() {
            UUID id = UUID.randomUUID();
            Instant queuedAt = Instant.parse("2026-01-01T00:00:00Z").plusNanos(1000 * clock.incrementAndGet());
            String spec = String.format("{\"name\": \"%s\", \"steps\": [{\"run\": {\"command\": \"make\"}}]%s}", name,
                    contexts.isEmpty() ? "" : ", \"contexts\": " + Json.write(contexts));
            jdbi.useHandle(h -> {
                // Numbered as the product numbers jobs, so a rerun's number does not collide with a fixture's.
                long number = h.createQuery("""
                        UPDATE gantry.project SET last_job_number = last_job_number + 1 WHERE id = ?
                        RETURNING last_job_number""").bind(0, projectId).mapTo(Long.class).one();
                h.createUpdate("""
                        INSERT INTO gantry.job (id, workflow_id, project_id, number, name, type, status, requires,
                                                resource_class, cpu, memory_mb, executor, parallelism, spec,
                                                copied_from, cancel_requested, created_at, queued_at)
                        VALUES (:id, :workflowId, :projectId, :number, :name, 'build', :status,
                                CAST(:requires AS jsonb), :resourceClass, :cpu, :memoryMb,
                                '{"type": "docker", "image": "cimg/base:2024.01"}', :parallelism,
                                CAST(:spec AS jsonb), CAST(:copiedFrom AS uuid), :cancelRequested, now(), :queuedAt)""")
                        .bindMap(Map.of("id", id, "workflowId", workflowId, "projectId", projectId,
                                "number", number, "name", name, "status", status, "requires", requires,
                                "resourceClass", resourceClass, "cpu", cpu, "memoryMb", memoryMb))
                        .bind("parallelism", parallelism).bind("spec", spec)
                        .bind("copiedFrom", copiedFrom == null ? null : copiedFrom.toString()).bind("cancelRequested", cancelRequested)
                        .bind("queuedAt", queuedAt.atOffset(ZoneOffset.UTC))
                        .execute();
                if (queuedTasks != null ? queuedTasks : status.equals("queued")) {
                    for (int node = 0; node < parallelism; node++) {
                        h.execute("""
                                INSERT INTO gantry.job_task (job_id, node_index, status, queued_at)
                                VALUES (?, ?, 'queued', ?)""", id, node, queuedAt.atOffset(ZoneOffset.UTC));
                    }
                }
            });
            return id;
        }
    }

    /** Moves the job's and its tasks' queue time to {@code ago} before now: fixtures queue in 2026-01. */
    void queuedAgo(UUID jobId, Duration ago) {
        jdbi.useTransaction(h -> {
            h.execute("UPDATE gantry.job SET queued_at = now() - ? * interval '1 ms' WHERE id = ?",
                    ago.toMillis(), jobId);
            h.execute("UPDATE gantry.job_task SET queued_at = now() - ? * interval '1 ms' WHERE job_id = ?",
                    ago.toMillis(), jobId);
        });
    }

    /** The job's number, as the API names it. */
    long number(UUID jobId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT number FROM gantry.job WHERE id = ?").bind(0, jobId)
                .mapTo(Long.class).one());
    }

    String jobStatus(UUID jobId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM gantry.job WHERE id = ?").bind(0, jobId)
                .mapTo(String.class).one());
    }

    String taskStatus(UUID jobId, int node) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM gantry.job_task WHERE job_id = ? AND node_index = ?")
                .bind(0, jobId).bind(1, node).mapTo(String.class).one());
    }
}
