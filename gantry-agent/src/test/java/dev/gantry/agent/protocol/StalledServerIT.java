package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on loopback whose first heartbeat, step report and output call are never answered, as a server stopped
 * with SIGSTOP (or in a long pause) behind a load balancer holds the connection an agent sent it on; a new connection
 * is answered, as the balancer gives it to a server that works. The lease is 3 s: each call must get through within
 * it, not after the 30 s of a plain call. The first registration
 * is answered 502, as the balancer does when the server behind it registered the agent and then stopped: the agent
 * sends it again with the same {@code Idempotency-Key}, so that the server returns that agent rather than a second.
 */
class StalledServerIT {
    static final TaskRef TASK = new TaskRef("job-1", 0, "lease-1");
    static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(50), Duration.ofMillis(500),
            Duration.ofSeconds(30));

    HttpServer server;
    final ExecutorService handlers = Executors.newCachedThreadPool();
    final CountDownLatch released = new CountDownLatch(1);
    /** Calls to the task routes by their last path segment: heartbeat, output, 0 (a step's index). */
    final Map<String, AtomicInteger> taskCalls = new ConcurrentHashMap<>();
    final List<String> registrationKeys = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(handlers);
        server.createContext("/api/agent/v1/register", ex -> {
            registrationKeys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
            answer(ex, registrationKeys.size() == 1 ? 502 : 201, """
                    {"id": "agent-1", "credential": "gnt_agentkey_test", "heartbeat_interval_ms": 1000,
                     "lease_timeout_ms": 3000, "poll_timeout_ms": 1000}""");
        });
        server.createContext("/api/agent/v1/tasks/", ex -> {
            String path = ex.getRequestURI().getPath();
            String call = path.substring(path.lastIndexOf('/') + 1);
            if (taskCalls.computeIfAbsent(call, c -> new AtomicInteger()).incrementAndGet() == 1) {
                try {
                    released.await(); // the stalled server: reads the request, never answers
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            answer(ex, 200, call.equals("output") ? "{\"length\": 5}" : "{\"cancel\": false}");
        });
        server.start();
    }

    @AfterEach
    void stop() {
        released.countDown();
        server.stop(0);
        handlers.shutdownNow();
    }

    @Test
    void a_heartbeat_held_by_a_stalled_server_is_sent_again_on_a_new_connection_within_the_lease()
            throws Exception {
        HttpAgentServer agent = registered();

        long start = System.nanoTime();
        boolean cancel = agent.heartbeat(TASK);

        assertThat(cancel).isFalse();
        assertSentAgainWithinTheLease("heartbeat", start);
    }

    @Test
    void a_step_report_held_by_a_stalled_server_is_sent_again_within_the_lease() throws Exception {
        HttpAgentServer agent = registered();

        long start = System.nanoTime();
        agent.reportStep(TASK, 0, new StepReport("build", StepStatus.SUCCESS, 0, 0, Instant.now(), Instant.now()));

        assertSentAgainWithinTheLease("0", start);
    }

    @Test
    void output_held_by_a_stalled_server_is_sent_again_within_the_lease() throws Exception {
        HttpAgentServer agent = registered();

        long start = System.nanoTime();
        long length = agent.appendOutput(TASK, 0, "hello".getBytes(StandardCharsets.UTF_8));

        assertThat(length).isEqualTo(5);
        assertSentAgainWithinTheLease("output", start);
    }

    private HttpAgentServer registered() throws InterruptedException {
        HttpAgentServer agent = new HttpAgentServer(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                "token", FAST);
        agent.register(new AgentInfo("host-1", 2, 4096, 10, "default", "test"), "key-1");
        return agent;
    }

    /** Cut short at a third of the 3-s lease, then answered on the second connection. */
    private void assertSentAgainWithinTheLease(String call, long startNanos) {
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        assertThat(taskCalls.get(call)).hasValue(2);
        assertThat(took).isLessThan(Duration.ofSeconds(3)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void a_registration_whose_answer_was_lost_is_sent_again_with_the_same_key() throws Exception {
        HttpAgentServer agent = new HttpAgentServer(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                "token", FAST);

        Registration registration = agent.register(new AgentInfo("host-1", 2, 4096, 10, "default", "test"), "key-1");

        assertThat(registration.id()).isEqualTo("agent-1");
        assertThat(registrationKeys).containsExactly("key-1", "key-1");
    }

    private static void answer(HttpExchange ex, int status, String json) throws IOException {
        ex.getRequestBody().readAllBytes();
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
        ex.close();
    }
}
