package dev.gantry.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An agent's side of docs/agent-protocol.md over loopback: registers with the agent token, then calls as each agent
 * with the credential its registration answered (by the agent id in the path, or the lease its claim got; else the
 * agent registered last).
 * Each method returns the raw answer so that tests can check statuses. Thread-safe.
 */
final class AgentClient {
    static final String PREFIX = "/api/agent/v1";

    private final ApiClient http;
    private final String token;
    private final Map<String, String> credentials;
    private final Map<String, String> leases;
    private volatile String lastCredential;

    AgentClient(ApiClient anonymous, String token) {
        this(anonymous, token, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
    }

    private AgentClient(ApiClient anonymous, String token, Map<String, String> credentials,
                        Map<String, String> leases) {
        this.http = anonymous;
        this.token = token;
        this.credentials = credentials;
        this.leases = leases;
    }

    /**
     * The same agents (their credentials and leases, shared from now on) calling another server of the database, as
     * an agent behind a load balancer does.
     */
    AgentClient through(ApiClient anotherServer) {
        AgentClient other = new AgentClient(anotherServer, token, credentials, leases);
        other.lastCredential = lastCredential;
        return other;
    }

    /** A running task as the claim handed it out. */
    record Claimed(UUID jobId, int nodeIndex, String lease, JsonNode assignment) {
        String path() {
            return PREFIX + "/tasks/" + jobId + "/" + nodeIndex;
        }
    }

    ApiClient.Answer register(String name, int cpu, int memoryMb) {
        return remember(post(PREFIX + "/register", String.format(
                "{\"name\": \"%s\", \"cpu\": %d, \"memory_mb\": %d, \"version\": \"0.1.0\"}", name, cpu, memoryMb)));
    }

    /** Registers as {@link #register} does, with an {@code Idempotency-Key}, as the agent does. */
    ApiClient.Answer register(String name, String key) {
        return remember(send("POST", PREFIX + "/register", HttpRequest.BodyPublishers.ofString(
                "{\"name\": \"" + name + "\", \"cpu\": 64, \"memory_mb\": 1048576}"), null,
                "Content-Type", "application/json", "Idempotency-Key", key));
    }

    /** Keeps the credential a registration answered, for the agent's later calls. */
    private ApiClient.Answer remember(ApiClient.Answer registered) {
        if (registered.status() == 201 || registered.status() == 200) {
            credentials.put(registered.text("id"), registered.text("credential"));
            lastCredential = registered.text("credential");
        }
        return registered;
    }

    /** The credential of the agent {@code agentId} registered as. */
    String credential(String agentId) {
        return credentials.get(agentId);
    }

    /** Registers an agent of the pool {@code pool}, as large as {@link #claimed(String)} says it has free. */
    String registeredInPool(String name, String pool) {
        ApiClient.Answer answer = remember(post(PREFIX + "/register", String.format(
                "{\"name\": \"%s\", \"cpu\": 64, \"memory_mb\": %d, \"pool\": \"%s\"}", name, 1 << 20, pool)));
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
        ApiClient.Answer answer = post(PREFIX + "/agents/" + agentId + "/claim", String.format(
                "{\"free_cpu\": %d, \"free_memory_mb\": %d}", freeCpu, freeMemoryMb));
        if (answer.status() == 200 && credentials.containsKey(agentId)) {
            leases.put(answer.text("lease"), credentials.get(agentId));
        }
        return answer;
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
        return http.sendForBytes("GET", path, HttpRequest.BodyPublishers.noBody(), "Authorization", "Bearer "
                + bearer(path, lease), "Gantry-Lease", lease);
    }

    /** Sends as the agent the call is for and, unless null, with the lease; {@code headers} are name, value, … */
    ApiClient.Answer send(String method, String path, HttpRequest.BodyPublisher body, String lease,
                          String... headers) {
        List<String> all = new ArrayList<>(List.of("Authorization", "Bearer " + bearer(path, lease)));
        if (lease != null) {
            all.addAll(List.of("Gantry-Lease", lease));
        }
        all.addAll(List.of(headers));
        return http.send(method, path, body, all.toArray(String[]::new));
    }

    /** The registration token for {@code /register}; else the credential of the agent the path or lease names. */
    private String bearer(String path, String lease) {
        if (path.endsWith("/register")) {
            return token;
        }
        String[] parts = path.split("/");
        for (int i = 0; i + 1 < parts.length; i++) {
            if (parts[i].equals("agents") && credentials.containsKey(parts[i + 1])) {
                return credentials.get(parts[i + 1]);
            }
        }
        String byLease = lease == null ? null : leases.get(lease);
        return byLease != null ? byLease : lastCredential != null ? lastCredential : token;
    }
}
