package dev.gantry.server.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jdbi.v3.core.Handle;

/**
 * A step's start or end as an agent reports it: in a step report of its own, or among the last ones that a
 * completion carries. Recording it replaces what the step had.
 *
 * @param startedAt the agent's time, or the server's when the agent gave none
 * @param stoppedAt null while the step runs
 */
record StepUpdate(int index, String name, String status, Integer exitCode, long outputOffset, Instant startedAt,
                  Instant stoppedAt) {
    private static final Set<String> STATUSES = Set.of("running", "success", "failed", "canceled", "skipped");
    /** Step indexes have at most six digits, in paths and in bodies alike. */
    static final int MAX_INDEX = 999_999;

    /** Reads the fields of one report; {@code now} stands in for a missing {@code started_at}. */
    static StepUpdate read(ObjectNode body, int index, Instant now) {
        String name = AgentRequests.noNul("name", AgentRequests.string(body, "name"));
        String status = AgentRequests.string(body, "status");
        if (!STATUSES.contains(status)) {
            throw ApiException.invalid("status", "\"status\" must be one of running, success, failed, canceled, "
                    + "skipped, got " + ApiException.quote(status));
        }
        Integer exitCode = AgentRequests.optionalInteger(body, "exit_code", Integer.MIN_VALUE, Integer.MAX_VALUE)
                .map(Long::intValue).orElse(null);
        long outputOffset = AgentRequests.integer(body, "output_offset", 0, Long.MAX_VALUE);
        Instant startedAt = AgentRequests.optionalTime(body, "started_at").orElse(now);
        Instant stoppedAt = AgentRequests.optionalTime(body, "stopped_at").orElse(null);
        return new StepUpdate(index, name, status, exitCode, outputOffset, startedAt, stoppedAt);
    }

    /** The reports of a completion's optional {@code "steps"} array, each with its {@code "index"}. */
    static List<StepUpdate> readAll(ObjectNode body, Instant now) {
        JsonNode array = body.get("steps");
        if (array == null || array.isNull()) {
            return List.of();
        }
        if (!(array instanceof ArrayNode steps)) {
            throw ApiException.invalid("steps", "\"steps\" must be an array of step reports");
        }
        List<StepUpdate> updates = new ArrayList<>();
        for (JsonNode step : steps) {
            if (!(step instanceof ObjectNode report)) {
                throw ApiException.invalid("steps", "each of \"steps\" must be an object");
            }
            int index = (int) AgentRequests.integer(report, "index", 0, MAX_INDEX);
            updates.add(read(report, index, now));
        }
        return updates;
    }

    /** Records the step in {@code h}'s transaction; the caller has checked the lease. */
    void record(Handle h, TaskKey task) {
        h.attach(StepDao.class).upsert(task.jobId(), task.nodeIndex(), index, name, status, exitCode, outputOffset,
                startedAt.atOffset(ZoneOffset.UTC), stoppedAt == null ? null : stoppedAt.atOffset(ZoneOffset.UTC));
    }
}
