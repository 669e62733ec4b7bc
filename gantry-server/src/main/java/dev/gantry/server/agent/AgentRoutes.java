package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.scheduler.Instance;
import dev.gantry.server.auth.AgentAuthentication;
import dev.gantry.server.auth.ApiToken;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonBody;
import dev.gantry.server.pipeline.IdempotencyKey;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.storage.OutputGapException;
import dev.gantry.server.storage.OutputStore;
import io.javalin.http.Context;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * Registration, claims, heartbeats, output and completion of the agent protocol (docs/agent-protocol.md). A claim's
 * wait runs on a virtual thread of {@code waiters}, so a long poll holds no HTTP thread. Thread-safe.
 */
final class AgentRoutes {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MAX_NAME = 200;

    private final Claims claims;
    private final Leases leases;
    private final OutputStore output;
    private final AgentSettings settings;
    private final ExecutorService waiters;
    private final InstantSource clock;

    AgentRoutes(Claims claims, Leases leases, OutputStore output, AgentSettings settings, ExecutorService waiters,
                InstantSource clock) {
        this.claims = claims;
        this.leases = leases;
        this.output = output;
        this.settings = settings;
        this.waiters = waiters;
        this.clock = clock;
    }

    /**
     * {@code POST /register}: 201 with the new agent's id, a credential and the timings it must keep; 200 with the
     * agent an earlier registration with the same {@code Idempotency-Key} made, and a new credential for it.
     */
    void register(Context ctx) {
        ObjectNode body = JsonBody.readObject(ctx);
        String name = AgentRequests.noNul("name", AgentRequests.string(body, "name"));
        if (name.isBlank() || name.length() > MAX_NAME) {
            throw ApiException.invalid("name", "\"name\" must be 1 to " + MAX_NAME + " characters");
        }
        int cpu = (int) AgentRequests.integer(body, "cpu", 1, 10_000);
        int memoryMb = (int) AgentRequests.integer(body, "memory_mb", 1, Integer.MAX_VALUE);
        Integer diskGb = body.hasNonNull("disk_gb")
                ? (int) AgentRequests.integer(body, "disk_gb", 1, Integer.MAX_VALUE) : null;
        String pool = body.hasNonNull("pool") ? AgentRequests.string(body, "pool") : Instance.DEFAULT_POOL;
        if (!Instance.POOL_NAME.matcher(pool).matches()) {
            throw ApiException.invalid("pool", "\"pool\" must be 1 to 63 lower-case letters, digits, '.', '_' or '-'");
        }
        AgentAuthentication.Registrar registrar = AgentAuthentication.registrar(ctx);
        if (registrar.pools() != null && !registrar.pools().contains(pool)) {
            throw ApiException.forbidden("this registration token registers agents of pool"
                    + (registrar.pools().size() == 1 ? " " : "s ") + String.join(", ", registrar.pools())
                    + ", not " + pool);
        }
        String key = IdempotencyKey.fromHeaders(Collections.list(ctx.req().getHeaders(IdempotencyKey.HEADER)))
                .map(IdempotencyKey::value).orElse(null);
        ApiToken credential = ApiToken.generate(TokenKind.AGENT_KEY, RANDOM);
        Claims.Registered agent = claims.register(name, cpu, memoryMb, diskGb, pool, credential.hash(),
                registrar.tokenId(), key);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", agent.id().toString());
        answer.put("credential", credential.value());
        answer.put("heartbeat_interval_ms", settings.heartbeatInterval().toMillis());
        answer.put("lease_timeout_ms", settings.leaseTimeout().toMillis());
        answer.put("poll_timeout_ms", settings.pollTimeout().toMillis());
        Json.respond(ctx, agent.repeated() ? 200 : 201, answer);
    }

    /** {@code POST /agents/{agent_id}/claim}: 200 with an assignment, or 204 after the poll timeout. */
    void claim(Context ctx) {
        UUID agentId = AgentRequests.pathId(ctx, "agent_id", "agent");
        ObjectNode body = JsonBody.readObject(ctx);
        FreeResources free = new FreeResources((int) AgentRequests.integer(body, "free_cpu", 0, 10_000),
                (int) AgentRequests.integer(body, "free_memory_mb", 0, Integer.MAX_VALUE));
        ctx.future(() -> CompletableFuture.supplyAsync(() -> {
            try {
                return claims.claim(agentId, free);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.<ObjectNode>empty();
            }
        }, waiters).thenAccept(assignment -> {
            if (assignment.isPresent()) {
                Json.respond(ctx, 200, assignment.get());
            } else {
                ctx.status(204);
            }
        }));
    }

    /** {@code POST /tasks/{job_id}/{node_index}/heartbeat}: renews the lease, says whether to cancel. */
    void heartbeat(Context ctx) {
        boolean cancel = leases.heartbeat(AgentRequests.task(ctx), AgentRequests.lease(ctx));
        Json.respond(ctx, 200, Map.of("cancel", cancel));
    }

    /**
     * {@code POST /tasks/{job_id}/{node_index}/complete}: ends the task; a repeat with the same lease is 200. The body
     * may carry the step reports and the tail of the output that the agent has not sent yet, so that a short task
     * needs no call of its own for them; they are recorded in the transaction that ends the task, only if the lease
     * ends it.
     */
    void complete(Context ctx) {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        ObjectNode body = JsonBody.readObject(ctx);
        String word = AgentRequests.string(body, "status");
        TaskStatus status = switch (word) {
            case "success" -> TaskStatus.SUCCESS;
            case "failed" -> TaskStatus.FAILED;
            case "canceled" -> TaskStatus.CANCELED;
            // the agent could not run it (an image it cannot pull): retried once, as a lost agent's task is
            case "infrastructure_fail" -> TaskStatus.INFRASTRUCTURE_FAIL;
            default -> throw ApiException.invalid("status", "\"status\" must be success, failed, canceled or "
                    + "infrastructure_fail, got " + ApiException.quote(word));
        };
        Optional<String> message = AgentRequests.optionalString(body, "message").filter(m -> !m.isBlank());
        List<StepUpdate> steps = StepUpdate.readAll(body, clock.instant().truncatedTo(ChronoUnit.MICROS));
        Optional<OutputTail> tail = OutputTail.read(body);
        // The output is on file before the task's end commits, so whoever follows it sees all of it.
        Leases.LastReports last = (h, late) -> {
            // In the completion's transaction where output is in the database: no second connection meanwhile.
            OutputStore output = this.output.within(h);
            if (late) {
                // After the sweeper's note the agent's offsets no longer line up: its tail follows the note as is.
                note(output, task, "[gantry] " + clock.instant() + ": the agent's result arrived after its lease had "
                        + "run out, before any other attempt of the job started, and counts: " + status.word()
                        + tail.map(t -> "; the last output it kept follows (from byte " + t.offset() + " of its "
                        + "stream)").orElse(""));
                tail.ifPresent(t -> note(output, task, new String(t.bytes(), StandardCharsets.UTF_8)));
            } else {
                tail.ifPresent(t -> append(output, task, t.offset(), new ByteArrayInputStream(t.bytes())));
            }
            message.ifPresent(m -> note(output, task, "[gantry] the agent ended the task " + status.word() + ": "
                    + m));
            steps.forEach(step -> step.record(h, task));
        };
        Leases.Completed how;
        try {
            how = leases.complete(task, lease, status, last);
        } catch (OutputGapException gap) {
            gap(ctx, gap);
            return;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("status", status.word());
        if (how == Leases.Completed.SUPERSEDED) {
            // 200, not 409: the agent may forget the result, which the server has kept
            answer.put("superseded", true);
            answer.put("message", "the task had been given up as lost and another attempt of the job started (or "
                    + "the workflow ended) before this result arrived: it is kept, but does not count");
            note(output, task, "[gantry] " + clock.instant() + ": the agent's result (" + status.word() + ") arrived "
                    + "after its lease had run out and another attempt had started; kept, not counted");
        }
        Json.respond(ctx, 200, answer);
    }

    /**
     * {@code POST /tasks/{job_id}/{node_index}/output?offset=N}: appends the body from byte N on. Bytes the server
     * has are skipped; an offset beyond the stored length is 409 with the length to resend from.
     */
    void output(Context ctx) throws IOException {
        TaskKey task = AgentRequests.task(ctx);
        UUID lease = AgentRequests.lease(ctx);
        String offsetText = ctx.queryParam("offset");
        if (offsetText == null || !offsetText.matches("\\d{1,18}")) {
            throw ApiException.invalid("offset", "\"offset\" must be the byte offset of the body in the node's "
                    + "output, an integer >= 0");
        }
        leases.require(task, lease);
        try (InputStream body = AgentRequests.upload(ctx)) {
            Json.respond(ctx, 200, Map.of("length", append(output, task, Long.parseLong(offsetText), body)));
        } catch (OutputGapException gap) {
            gap(ctx, gap);
        }
    }

    private static long append(OutputStore output, TaskKey task, long offset, InputStream bytes) {
        try {
            return output.append(task.jobId(), task.nodeIndex(), offset, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 409 with the length the agent must resend its output from. */
    private static void gap(Context ctx, OutputGapException gap) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("message", gap.getMessage());
        answer.put("length", gap.length());
        Json.respond(ctx, 409, answer);
    }

    private static void note(OutputStore output, TaskKey task, String line) {
        try {
            output.appendNote(task.jobId(), task.nodeIndex(), (line.endsWith("\n") ? line : line + "\n"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
