package dev.gantry.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * An agent's side of docs/agent-protocol.md over loopback, with the agent token as {@code Authorization: Bearer}.
 * Each method returns the raw answer so that tests can check statuses. Thread-safe.
 */
final class AgentClient {
    static final String PREFIX = "/api/agent/v1";

    private final ApiClient http;
    private final String token;

    AgentClient(ApiClient anonymous, String token) {
        this.http = anonymous;
        this.token = token;
    }

    /** A running task as the claim handed it out. */
    record Claimed(UUID jobId, int nodeIndex, String lease, JsonNode assignment) {
        String path() {
            return PREFIX + "/tasks/" + jobId + "/" + nodeIndex;
        }
    }

    ApiClient.Answer register(String name, int cpu, int memoryMb) {
        return post(PREFIX + "/register", String.format(
                "{\"name\": \"%s\", \"cpu\": %d, \"memory_mb\": %d, \"version\": \"0.1.0\"}", name, cpu, memoryMb));
    }

    /** Registers an agent of the pool {@code pool}, as large as {@link #claimed(String)} says it has free. */
    String registeredInPool(String name, String pool) {
        ApiClient.Answer answer = post(PREFIX + "/register", String.format(
                "{\"name\": \"%s\", \"cpu\": 64, \"memory_mb\": %d, \"pool\": \"%s\"}", name, 1 << 20, pool));
        if (answer.status() != 201) {
            throw new AssertionError("register: " + answer);
        }
        return answer.text("id");
    }

    /** Registers an agent as large as {@link #claimed(String)} says it has free, and returns its id. */
    String registered(String name) {
        return registered(name, 64, 1 << 20);
    }

    /** Registers and returns the agent id. */
    String registered(String name, int cpu, int memoryMb) {
        ApiClient.Answer answer = register(name, cpu, memoryMb);
        if (answer.status() != 201) {
            throw new AssertionError("register: " + answer);
        }
        return answer.text("id");
    }

    ApiClient.Answer claim(String agentId, int freeCpu, int freeMemoryMb) {
        return post(PREFIX + "/agents/" + agentId + "/claim", String.format(
                "{\"free_cpu\": %d, \"free_memory_mb\": %d}", freeCpu, freeMemoryMb));
    }

    /** Claims with plenty of room; fails unless a task came. */
    Claimed claimed(String agentId) {
        return claimed(claim(agentId, 64, 1 << 20));
    }

    static Claimed claimed(ApiClient.Answer answer) {
        if (answer.status() != 200) {
            throw new AssertionError("claim: " + answer);
        }
        JsonNode json = answer.json();
        return new Claimed(UUID.fromString(json.at("/task/job_id").asText()), json.at("/task/node_index").asInt(),
                json.get("lease").asText(), json);
    }

    ApiClient.Answer heartbeat(Claimed task, String lease) {
        return send("POST", task.path() + "/heartbeat", HttpRequest.BodyPublishers.noBody(), lease);
    }

    ApiClient.Answer output(Claimed task, String lease, long offset, String text) {
        return send("POST", task.path() + "/output?offset=" + offset, HttpRequest.BodyPublishers.ofString(text),
                lease, "Content-Type", "application/octet-stream");
    }

    ApiClient.Answer complete(Claimed task, String lease, String status) {
        return json("POST", task.path() + "/complete", "{\"status\": \"" + status + "\"}", lease);
    }

    /** A completion whose body is {@code json}, which may carry step reports and output. */
    ApiClient.Answer complete(Claimed task, String lease, String status, String extraFields) {
        return json("POST", task.path() + "/complete", "{\"status\": \"" + status + "\", " + extraFields + "}", lease);
    }

    ApiClient.Answer step(Claimed task, String lease, int index, String json) {
        return json("PUT", task.path() + "/steps/" + index, json, lease);
    }

    ApiClient.Answer post(String path, String json) {
        return json("POST", path, json, null);
    }

    ApiClient.Answer json(String method, String path, String json, String lease) {
        return send(method, path, HttpRequest.BodyPublishers.ofString(json), lease, "Content-Type",
                "application/json");
    }

    ApiClient.Answer bytes(String method, String path, byte[] body, String lease) {
        return send(method, path, HttpRequest.BodyPublishers.ofByteArray(body), lease, "Content-Type",
                "application/octet-stream");
    }

    ApiClient.Answer get(String path, String lease) {
        return send("GET", path, HttpRequest.BodyPublishers.noBody(), lease);
    }

    /** The bytes a 200 answer to GET {@code path} carries. */
    byte[] download(String path, String lease) {
        return http.sendForBytes("GET", path, HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer " + token,
                "Gantry-Lease", lease);
    }

    /** Sends with the agent token and, unless null, the lease; {@code headers} are name, value, … */
    ApiClient.Answer send(String method, String path, HttpRequest.BodyPublisher body, String lease,
                          String... headers) {
        List<String> all = new ArrayList<>(List.of("Authorization", "Bearer " + token));
        if (lease != null) {
            all.addAll(List.of("Gantry-Lease", lease));
        }
        all.addAll(List.of(headers));
        return http.send(method, path, body, all.toArray(String[]::new));
    }
}
