package dev.gantry.agent.protocol;

import dev.gantry.resilience.RetryBudget;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@link AgentServer} over HTTP with {@link HttpClient}: JSON bodies, the token as {@code Authorization: Bearer},
 * the lease as {@code Gantry-Lease}. Retries are decided in {@link HttpCalls}. Thread-safe; one instance per agent.
 */
public final class HttpAgentServer implements AgentServer {
    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final String BASE = "/api/agent/v1";
    /** Plain calls; uploads and downloads of archives get {@link #TRANSFER_TIMEOUT}. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(30);
    /** Added to the server's poll timeout, so a long poll that the server ends on time is never cut short here. */
    private static final Duration POLL_MARGIN = Duration.ofSeconds(15);

    /**
     * How long a call that a step needs (caches, workspaces, artifacts, test results) waits out a server or database
     * that is away before the step fails: the job keeps its place meanwhile, and the server renews leases after an
     * outage. Heartbeats, step reports and output are simply sent again later, and a completion is kept on disk.
     */
    static final Duration OUTAGE_PATIENCE = Duration.ofMinutes(10);

    /** The least a heartbeat, step report or output call waits for its answer, however short the lease. */
    static final Duration MIN_QUICK_CALL_TIMEOUT = Duration.ofSeconds(1);

    private final HttpCalls calls;
    private volatile Duration pollTimeout = Duration.ofSeconds(25);
    private volatile Duration quickCallTimeout = CALL_TIMEOUT;

    /** A client for the server at {@code server} (e.g. {@code http://127.0.0.1:8080}), sending {@code token}. */
    public HttpAgentServer(URI server, String token, RetryPolicy retry) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("an agent token is required");
        }
        String base = server.toString().replaceAll("/+$", "");
        // One quick retry per ten first attempts, and ten saved for a burst (a server restart under a few running
        // tasks): when the server fails part of its requests, the agent adds at most that share to its load.
        this.calls = new HttpCalls(base, URI.create(base + BASE), token, retry, new RetryBudget(0.1, 10));
    }

    private HttpAgentServer(HttpCalls calls) {
        this.calls = calls;
    }

    @Override
    public String credential() {
        return calls.credential();
    }

    @Override
    public AgentServer as(String credential) {
        if (credential.equals(calls.credential())) {
            return this;
        }
        HttpAgentServer other = new HttpAgentServer(calls.as(credential));
        other.quickCallTimeout = quickCallTimeout;
        return other;
    }

    @Override
    public Registration register(AgentInfo agent, String key) throws InterruptedException {
        JsonNode r = expectJson(calls.send("register", null, post("/register", json(Map.of("name", agent.name(),
                "cpu", agent.cpu(), "memory_mb", agent.memoryMb(), "disk_gb", agent.diskGb(), "pool", agent.pool(),
                "version", agent.version()))).header("Idempotency-Key", key).build(), null), 201, 200);
        Registration registration = new Registration(r.path("id").asText(),
                Duration.ofMillis(r.path("heartbeat_interval_ms").asLong(2000)),
                Duration.ofMillis(r.path("lease_timeout_ms").asLong(30000)),
                Duration.ofMillis(r.path("poll_timeout_ms").asLong(25000)));
        if (registration.id().isEmpty() || r.path("credential").asText().isEmpty()) {
            throw new ProtocolException("register", 201, "no agent id or credential in the answer");
        }
        calls.authenticateAs(r.path("credential").asText());
        pollTimeout = registration.pollTimeout();
        quickCallTimeout = quickCallTimeout(registration.leaseTimeout());
        calls.capWaits(registration.heartbeatInterval());
        return registration;
    }

    @Override
    public Optional<Assignment> claim(String agentId, int freeCpu, int freeMemoryMb) throws InterruptedException {
        HttpRequest request = post("/agents/" + encode(agentId) + "/claim",
                json(Map.of("free_cpu", freeCpu, "free_memory_mb", freeMemoryMb)))
                .timeout(pollTimeout.plus(POLL_MARGIN)).build();
        HttpCalls.Reply reply = calls.send("claim", null, request, null);
        return switch (reply.status()) {
            case 204 -> Optional.empty();
            case 404 -> throw new UnknownAgentException(agentId);
            case 200 -> Optional.of(read(reply, Assignment.class));
            default -> throw reply.unexpected("claim");
        };
    }

    @Override
    public boolean heartbeat(TaskRef task) throws InterruptedException {
        HttpRequest request = builder(task, "/heartbeat").header("Content-Type", "application/json")
                .POST(BodyPublishers.noBody()).timeout(quickCallTimeout).build();
        return expectJson(quickTaskCall("heartbeat", task, request), 200).path("cancel").asBoolean(false);
    }

    /**
     * How long one heartbeat, step report or output call waits for its answer: a third of the lease (at least
     * {@link #MIN_QUICK_CALL_TIMEOUT}, at most {@link #CALL_TIMEOUT}). A server that holds the connection without
     * answering (stopped, in a long pause, behind a half-open connection) must not hold the heartbeat past the lease:
     * the sweeper of another server would give the running task up as lost. Nor should it hold a step's end or its
     * output for 30 s while the job waits. Cut short, the call (each of them is idempotent: a PUT, or an append at an
     * offset) is sent again on a new connection, which a load balancer gives to a server that answers.
     */
    static Duration quickCallTimeout(Duration leaseTimeout) {
        Duration third = leaseTimeout.dividedBy(3);
        if (third.compareTo(MIN_QUICK_CALL_TIMEOUT) < 0) {
            return MIN_QUICK_CALL_TIMEOUT;
        }
        return third.compareTo(CALL_TIMEOUT) > 0 ? CALL_TIMEOUT : third;
    }

    @Override
    public long appendOutput(TaskRef task, long offset, byte[] bytes) throws InterruptedException {
        HttpRequest request = builder(task, "/output?offset=" + offset).header("Content-Type",
                "application/octet-stream").POST(BodyPublishers.ofByteArray(bytes)).timeout(quickCallTimeout).build();
        HttpCalls.Reply reply = calls.send("output", task, request, null);
        if (reply.status() == 409) {
            JsonNode body = reply.json();
            if (body.has("length")) {
                throw new OutputOffsetException(task, offset, body.get("length").asLong());
            }
            throw new LeaseLostException(task, body.path("message").asText(reply.text()));
        }
        return expectJson(reply, 200).path("length").asLong();
    }

    @Override
    public void reportStep(TaskRef task, int stepIndex, StepReport report) throws InterruptedException {
        HttpRequest request = builder(task, "/steps/" + stepIndex).header("Content-Type", "application/json")
                .PUT(json(stepBody(report))).timeout(quickCallTimeout).build();
        expect(quickTaskCall("step", task, request), 200, 201, 204);
    }

    @Override
    public boolean complete(TaskRef task, Completion completion) throws InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", completion.outcome().word());
        if (completion.message() != null) {
            body.put("message", completion.message());
        }
        if (!completion.steps().isEmpty()) {
            List<Map<String, Object>> steps = new ArrayList<>();
            completion.steps().forEach((index, report) -> {
                Map<String, Object> step = new LinkedHashMap<>();
                step.put("index", index);
                step.putAll(stepBody(report));
                steps.add(step);
            });
            body.put("steps", steps);
        }
        if (completion.output().length > 0) {
            body.put("output", Map.of("offset", completion.outputOffset(), "data", completion.output()));
        }
        HttpCalls.Reply reply = calls.send("complete", task, post(task, "/complete", json(body)), null);
        if (reply.status() == 409 && reply.json().has("length")) {
            throw new OutputOffsetException(task, completion.outputOffset(), reply.json().get("length").asLong());
        }
        if (reply.status() == 409) {
            throw new LeaseLostException(task, reply.json().path("message").asText(reply.text()));
        }
        expect(reply, 200, 204);
        return !reply.json().path("superseded").asBoolean(false);
    }

    private static Map<String, Object> stepBody(StepReport report) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", report.name());
        body.put("status", report.status().word());
        body.put("exit_code", report.exitCode());
        body.put("output_offset", report.outputOffset());
        body.put("started_at", report.startedAt() == null ? null : report.startedAt().toString());
        body.put("stopped_at", report.stoppedAt() == null ? null : report.stoppedAt().toString());
        return body;
    }

    @Override
    public Optional<CacheHit> findCache(TaskRef task, List<String> keys) throws InterruptedException {
        StringBuilder query = new StringBuilder();
        for (String key : keys) {
            query.append(query.isEmpty() ? "?" : "&").append("key=").append(encode(key));
        }
        HttpCalls.Reply reply = taskCall("cache lookup", task, builder(task, "/cache" + query).GET()
                .timeout(CALL_TIMEOUT).build(), null);
        if (reply.status() == 404) {
            return Optional.empty();
        }
        JsonNode hit = expectJson(reply, 200);
        return Optional.of(new CacheHit(hit.path("key").asText(), hit.path("size").asLong()));
    }

    @Override
    public void downloadCache(TaskRef task, String key, Path target) throws InterruptedException {
        expect(taskCall("cache download", task, builder(task, "/cache/" + encode(key)).GET()
                .timeout(TRANSFER_TIMEOUT).build(), target), 200);
    }

    @Override
    public boolean uploadCache(TaskRef task, String key, Path archive) throws InterruptedException {
        HttpCalls.Reply reply = taskCall("cache upload", task, builder(task, "/cache/" + encode(key))
                .header("Content-Type", "application/gzip").PUT(file(archive)).timeout(TRANSFER_TIMEOUT).build(),
                null, true);
        if (reply.status() == 409) {
            return false;
        }
        expect(reply, 201, 200);
        return true;
    }

    @Override
    public String uploadWorkspaceLayer(TaskRef task, Path archive) throws InterruptedException {
        return expectJson(taskCall("workspace upload", task, builder(task, "/workspace")
                .header("Content-Type", "application/gzip").PUT(file(archive)).timeout(TRANSFER_TIMEOUT).build(),
                null), 201, 200).path("id").asText();
    }

    @Override
    public List<WorkspaceLayer> workspaceLayers(TaskRef task) throws InterruptedException {
        JsonNode body = expectJson(taskCall("workspace list", task, builder(task, "/workspace").GET()
                .timeout(CALL_TIMEOUT).build(), null), 200);
        List<WorkspaceLayer> layers = new ArrayList<>();
        body.path("layers").forEach(l -> layers.add(new WorkspaceLayer(l.path("id").asText(), l.path("size").asLong())));
        return layers;
    }

    @Override
    public List<TestTiming> timings(TaskRef task) throws InterruptedException {
        JsonNode body = expectJson(taskCall("timings", task, builder(task, "/timings").GET()
                .timeout(CALL_TIMEOUT).build(), null), 200);
        List<TestTiming> timings = new ArrayList<>();
        body.path("tests").forEach(t -> timings.add(new TestTiming(t.path("file").isNull() ? null
                : t.path("file").asText(null), t.path("classname").asText(""), t.path("name").asText(""),
                t.path("run_time").asDouble())));
        return timings;
    }

    @Override
    public void downloadWorkspaceLayer(TaskRef task, String layerId, Path target) throws InterruptedException {
        expect(taskCall("workspace download", task, builder(task, "/workspace/" + encode(layerId)).GET()
                .timeout(TRANSFER_TIMEOUT).build(), target), 200);
    }

    @Override
    public void uploadArtifact(TaskRef task, String path, Path file) throws InterruptedException {
        StringBuilder encoded = new StringBuilder();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                encoded.append('/').append(encode(segment));
            }
        }
        expect(taskCall("artifact upload", task, builder(task, "/artifacts" + encoded)
                .header("Content-Type", "application/octet-stream").PUT(file(file)).timeout(TRANSFER_TIMEOUT).build(),
                null), 201, 200);
    }

    @Override
    public void storeTests(TaskRef task, List<TestCase> tests) throws InterruptedException {
        List<Map<String, Object>> items = new ArrayList<>();
        for (TestCase t : tests) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("classname", t.classname());
            m.put("name", t.name());
            m.put("file", t.file());
            m.put("result", t.result());
            m.put("run_time", t.runTime());
            m.put("message", t.message());
            items.add(m);
        }
        expect(taskCall("tests", task, post(task, "/tests", json(Map.of("tests", items))), null), 201, 200);
    }

    /** The base URL this client talks to, as given, for messages. */
    public String server() {
        return calls.server();
    }

    private HttpCalls.Reply taskCall(String what, TaskRef task, HttpRequest request, Path download)
            throws InterruptedException {
        return taskCall(what, task, request, download, false);
    }

    /** A call about a task that is made again anyway if it fails: it gives up after the policy's time. */
    private HttpCalls.Reply quickTaskCall(String what, TaskRef task, HttpRequest request) throws InterruptedException {
        return lostOn409(calls.send(what, task, request, null), task, false);
    }

    /**
     * A call about a task that a step needs: it waits out an outage ({@link #OUTAGE_PATIENCE}). 409 means the lease
     * is gone, unless {@code conflictIsAnswer} (a cache key that exists).
     */
    private HttpCalls.Reply taskCall(String what, TaskRef task, HttpRequest request, Path download,
                                     boolean conflictIsAnswer) throws InterruptedException {
        return lostOn409(calls.send(what, task, request, download, OUTAGE_PATIENCE), task, conflictIsAnswer);
    }

    private static HttpCalls.Reply lostOn409(HttpCalls.Reply reply, TaskRef task, boolean conflictIsAnswer) {
        if (reply.status() == 409 && !conflictIsAnswer) {
            throw new LeaseLostException(task, reply.json().path("message").asText(reply.text()));
        }
        return reply;
    }

    private HttpRequest.Builder builder(TaskRef task, String path) {
        return calls.request("/tasks/" + encode(task.jobId()) + "/" + task.nodeIndex() + path)
                .header("Gantry-Lease", task.lease());
    }

    private HttpRequest post(TaskRef task, String path, BodyPublisher body) {
        return builder(task, path).header("Content-Type", "application/json").POST(body).timeout(CALL_TIMEOUT).build();
    }

    private HttpRequest.Builder post(String path, BodyPublisher body) {
        return calls.request(path).header("Content-Type", "application/json").POST(body).timeout(CALL_TIMEOUT);
    }

    private static BodyPublisher json(Object body) {
        try {
            return BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException("a request body is always serializable", e);
        }
    }

    /** The file's bytes, read afresh for each attempt, so a retry resends the whole file. */
    private static BodyPublisher file(Path path) {
        try {
            return BodyPublishers.ofFile(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + " to upload it", e);
        }
    }

    static <T> T read(HttpCalls.Reply reply, Class<T> type) {
        try {
            return JSON.readValue(reply.body(), type);
        } catch (JsonMappingException e) {
            // never the body: an assignment carries the job's secrets, and this message is logged
            throw new ProtocolException("reading " + type.getSimpleName(), reply.status(),
                    "the reply does not fit at " + e.getPathReference());
        } catch (IOException e) {
            throw new ProtocolException("reading " + type.getSimpleName(), reply.status(), "the reply is not JSON");
        }
    }

    private static JsonNode expectJson(HttpCalls.Reply reply, int... expected) {
        expect(reply, expected);
        return reply.json();
    }

    private static void expect(HttpCalls.Reply reply, int... expected) {
        for (int status : expected) {
            if (reply.status() == status) {
                return;
            }
        }
        throw reply.unexpected(reply.what());
    }

    static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
