package dev.gantry.agent.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the server's agent API on loopback, faithful to docs/agent-protocol.md where the agent can tell:
 * bearer token (401), leases (409 once a task is completed, revoked or reassigned), output offsets (append, skip
 * what is held, 409 with {@code length} past the end), cancel on heartbeat, immutable caches with prefix lookup
 * (newest first), workspace layers in upload order. It records what the agent sent for tests to assert on.
 * Thread-safe: the HTTP server runs on virtual threads.
 */
public final class FakeAgentApi implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = "/api/agent/v1";

    public final String token = "gnt_agent_test";
    /** What registering answers, and every later call must carry, as the real server's credentials. */
    public final String credential = "gnt_agentkey_test";
    public volatile long heartbeatIntervalMs = 100;
    /** What {@code GET /timings} answers for every task: maps of file, classname, name and run_time. */
    public final List<Map<String, Object>> timings = Collections.synchronizedList(new ArrayList<>());
    public volatile long pollTimeoutMs = 500;
    /** While set, every call answers 503, as the server does while its database is away. */
    public volatile boolean down;
    /** How many coming output calls answer 503 before the request is even read. */
    public final AtomicInteger failOutputCalls = new AtomicInteger();

    private final HttpServer http;
    private final BlockingQueue<ObjectNode> queued = new LinkedBlockingQueue<>();
    private final Map<String, FakeTask> tasks = new ConcurrentHashMap<>();
    private final List<String> registrations = Collections.synchronizedList(new ArrayList<>());
    private final List<Map.Entry<String, byte[]>> caches = Collections.synchronizedList(new ArrayList<>());
    private final List<Map.Entry<String, byte[]>> layers = Collections.synchronizedList(new ArrayList<>());

    public FakeAgentApi() throws IOException {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.createContext(BASE, this::handle);
        http.start();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    }

    /** Queues an assignment (as built by {@link Assignments}) for the next claim; a lease is given at claim time. */
    public void enqueue(ObjectNode assignment) {
        queued.add(assignment);
    }

    /** The task for a job id (node 0), once claimed. */
    public FakeTask task(String jobId) {
        return task(jobId, 0);
    }

    /** Node {@code node} of a job, once claimed. */
    public FakeTask task(String jobId, int node) {
        return tasks.get(jobId + "/" + node);
    }

    public List<String> registrations() {
        return List.copyOf(registrations);
    }

    public int workspaceLayerCount() {
        synchronized (layers) {
            return layers.size();
        }
    }

    public List<String> cacheKeys() {
        synchronized (caches) {
            return caches.stream().map(Map.Entry::getKey).toList();
        }
    }

    public List<String> layerIds() {
        synchronized (layers) {
            return layers.stream().map(Map.Entry::getKey).toList();
        }
    }

    @Override
    public void close() {
        http.stop(0);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            String path = ex.getRequestURI().getRawPath().substring(BASE.length());
            if (!("Bearer " + (path.equals("/register") ? token : credential)).equals(auth)) {
                reply(ex, 401, Map.of("message", "a valid agent token (or, after registering, credential) is "
                        + "required"));
                return;
            }
            String[] parts = path.split("/");
            if (down) {
                ex.getResponseHeaders().add("Retry-After", "0");
                reply(ex, 503, Map.of("message", "the database is unavailable; retry after 0 seconds"));
                return;
            }
            if (path.equals("/register")) {
                String id = UUID.randomUUID().toString();
                registrations.add(JSON.readTree(ex.getRequestBody()).path("name").asText());
                reply(ex, 201, Map.of("id", id, "credential", credential, "heartbeat_interval_ms",
                        heartbeatIntervalMs, "lease_timeout_ms", 30000, "poll_timeout_ms", pollTimeoutMs));
            } else if (parts.length == 4 && parts[1].equals("agents") && parts[3].equals("claim")) {
                claim(ex);
            } else if (parts.length >= 5 && parts[1].equals("tasks")) {
                taskCall(ex, parts[2] + "/" + parts[3], parts);
            } else {
                reply(ex, 404, Map.of("message", "no route " + path));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void claim(HttpExchange ex) throws IOException, InterruptedException {
        JsonNode body = JSON.readTree(ex.getRequestBody());
        ObjectNode next = queued.poll(pollTimeoutMs, TimeUnit.MILLISECONDS);
        if (next == null) {
            ex.sendResponseHeaders(204, -1);
            return;
        }
        String lease = UUID.randomUUID().toString();
        next.put("lease", lease);
        String key = next.at("/task/job_id").asText() + "/" + next.at("/task/node_index").asInt();
        tasks.put(key, new FakeTask(lease, body.path("free_cpu").asInt(), body.path("free_memory_mb").asInt()));
        reply(ex, 200, next);
    }

    private void taskCall(HttpExchange ex, String key, String[] parts) throws IOException {
        FakeTask task = tasks.get(key);
        String lease = ex.getRequestHeaders().getFirst("Gantry-Lease");
        String action = parts[4];
        if (task == null || !task.lease.equals(lease)
                || (task.status() != null && !action.equals("complete")) || task.revoked) {
            reply(ex, 409, Map.of("message", "the lease is not the task's current one"));
            return;
        }
        switch (action) {
            case "heartbeat" -> {
                task.heartbeats.incrementAndGet();
                reply(ex, 200, Map.of("cancel", task.cancel));
            }
            case "output" -> output(ex, task);
            case "steps" -> {
                JsonNode report = JSON.readTree(ex.getRequestBody());
                task.steps.add(Map.entry(Integer.parseInt(parts[5]), report));
                reply(ex, 200, Map.of());
            }
            case "complete" -> complete(ex, task);
            case "cache" -> cache(ex, parts);
            case "workspace" -> workspace(ex, parts);
            case "artifacts" -> {
                StringBuilder name = new StringBuilder();
                for (int i = 5; i < parts.length; i++) {
                    name.append(i == 5 ? "" : "/").append(URLDecoder.decode(parts[i], StandardCharsets.UTF_8));
                }
                task.artifacts.put(name.toString(), ex.getRequestBody().readAllBytes());
                reply(ex, 201, Map.of());
            }
            case "tests" -> {
                JSON.readTree(ex.getRequestBody()).path("tests").forEach(task.tests::add);
                reply(ex, 201, Map.of());
            }
            case "timings" -> reply(ex, 200, Map.of("tests", timings));
            default -> reply(ex, 404, Map.of("message", "no route " + action));
        }
    }

    /** As the server does: the output and step ends a completion carries count only while the task runs. */
    private void complete(HttpExchange ex, FakeTask task) throws IOException {
        JsonNode body = JSON.readTree(ex.getRequestBody());
        synchronized (task) {
            if (task.status() == null) {
                JsonNode output = body.path("output");
                if (output.isObject() && !append(ex, task, output.path("offset").asLong(), output.path("data")
                        .binaryValue())) {
                    return;
                }
                body.path("steps").forEach(step -> task.steps.add(Map.entry(step.path("index").asInt(), step)));
                task.complete(body.path("status").asText(), body.path("message").asText(null));
            }
        }
        reply(ex, 200, Map.of());
    }

    private void output(HttpExchange ex, FakeTask task) throws IOException {
        if (failOutputCalls.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            ex.getResponseHeaders().add("Retry-After", "0");
            reply(ex, 503, Map.of("message", "busy"));
            return;
        }
        long offset = Long.parseLong(ex.getRequestURI().getQuery().replace("offset=", ""));
        if (append(ex, task, offset, ex.getRequestBody().readAllBytes())) {
            task.outputCalls.incrementAndGet();
            reply(ex, 200, Map.of("length", task.output.size()));
        }
    }

    /** Appends from {@code offset} on, skipping bytes held; false after answering 409 for an offset beyond them. */
    private static boolean append(HttpExchange ex, FakeTask task, long offset, byte[] bytes) throws IOException {
        synchronized (task.output) {
            int held = task.output.size();
            if (offset > held) {
                reply(ex, 409, Map.of("message", "offset beyond the stored output", "length", held));
                return false;
            }
            int skip = (int) (held - offset);
            if (skip < bytes.length) {
                task.output.write(bytes, skip, bytes.length - skip);
            }
            return true;
        }
    }

    private void cache(HttpExchange ex, String[] parts) throws IOException {
        if (parts.length == 5) {
            List<String> keys = new ArrayList<>();
            for (String kv : ex.getRequestURI().getRawQuery().split("&")) {
                keys.add(URLDecoder.decode(kv.substring("key=".length()), StandardCharsets.UTF_8));
            }
            synchronized (caches) {
                for (String key : keys) {
                    Map.Entry<String, byte[]> exact = caches.stream().filter(c -> c.getKey().equals(key)).findFirst()
                            .orElse(null);
                    Map.Entry<String, byte[]> newestPrefix = caches.reversed().stream()
                            .filter(c -> c.getKey().startsWith(key)).findFirst().orElse(null);
                    Map.Entry<String, byte[]> hit = exact != null ? exact : newestPrefix;
                    if (hit != null) {
                        reply(ex, 200, Map.of("key", hit.getKey(), "size", hit.getValue().length));
                        return;
                    }
                }
            }
            reply(ex, 404, Map.of("message", "no cache"));
            return;
        }
        String key = URLDecoder.decode(parts[5], StandardCharsets.UTF_8);
        synchronized (caches) {
            Map.Entry<String, byte[]> found = caches.stream().filter(c -> c.getKey().equals(key)).findFirst()
                    .orElse(null);
            if (ex.getRequestMethod().equals("GET")) {
                if (found == null) {
                    reply(ex, 404, Map.of("message", "no cache " + key));
                } else {
                    bytes(ex, found.getValue());
                }
            } else if (found != null) {
                reply(ex, 409, Map.of("message", "cache key exists"));
            } else {
                caches.add(Map.entry(key, ex.getRequestBody().readAllBytes()));
                reply(ex, 201, Map.of());
            }
        }
    }

    private void workspace(HttpExchange ex, String[] parts) throws IOException {
        if (ex.getRequestMethod().equals("PUT")) {
            String id = UUID.randomUUID().toString();
            layers.add(Map.entry(id, ex.getRequestBody().readAllBytes()));
            reply(ex, 201, Map.of("id", id));
        } else if (parts.length == 5) {
            List<Object> list = new ArrayList<>();
            synchronized (layers) {
                layers.forEach(l -> list.add(Map.of("id", l.getKey(), "size", l.getValue().length)));
            }
            reply(ex, 200, Map.of("layers", list));
        } else {
            synchronized (layers) {
                bytes(ex, layers.stream().filter(l -> l.getKey().equals(parts[5])).findFirst().orElseThrow().getValue());
            }
        }
    }

    private static void bytes(HttpExchange ex, byte[] body) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/gzip");
        ex.sendResponseHeaders(200, body.length == 0 ? -1 : body.length);
        ex.getResponseBody().write(body);
    }

    private static void reply(HttpExchange ex, int status, Object body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    /** What the fake knows about one claimed task. */
    public static final class FakeTask {
        public final String lease;
        public final int offeredCpu;
        public final int offeredMemoryMb;
        public final ByteArrayOutputStream output = new ByteArrayOutputStream();
        public final List<Map.Entry<Integer, JsonNode>> steps = Collections.synchronizedList(new ArrayList<>());
        public final Map<String, byte[]> artifacts = new ConcurrentHashMap<>();
        public final List<JsonNode> tests = Collections.synchronizedList(new ArrayList<>());
        public final AtomicInteger heartbeats = new AtomicInteger();
        public final AtomicInteger outputCalls = new AtomicInteger();
        public volatile boolean cancel;
        public volatile boolean revoked;
        private volatile String status;
        private volatile String message;

        FakeTask(String lease, int offeredCpu, int offeredMemoryMb) {
            this.lease = lease;
            this.offeredCpu = offeredCpu;
            this.offeredMemoryMb = offeredMemoryMb;
        }

        synchronized void complete(String status, String message) {
            if (this.status == null) {
                this.status = status;
                this.message = message;
            }
        }

        /** The completed status, null until then. */
        public String status() {
            return status;
        }

        public String message() {
            return message;
        }

        public String outputText() {
            synchronized (output) {
                return output.toString(StandardCharsets.UTF_8);
            }
        }

        /** The last report of each step, by step index. */
        public Map<Integer, JsonNode> lastReports() {
            Map<Integer, JsonNode> last = new LinkedHashMap<>();
            synchronized (steps) {
                steps.forEach(e -> last.put(e.getKey(), e.getValue()));
            }
            return last;
        }
    }
}
