package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on loopback whose first heartbeat is never answered, as a server stopped with SIGSTOP (or in a long pause)
 * behind a load balancer holds the connection an agent sent it on; a new connection is answered, as the balancer
 * gives it to a server that works. The lease is 3 s: the heartbeat must get through within it. The first registration
 * is answered 502, as the balancer does when the server behind it registered the agent and then stopped: the agent
 * sends it again with the same {@code Idempotency-Key}, so that the server returns that agent rather than a second.
 */
class StalledServerIT {
    static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(50), Duration.ofMillis(500),
            Duration.ofSeconds(30));

    HttpServer server;
    final ExecutorService handlers = Executors.newCachedThreadPool();
    final CountDownLatch released = new CountDownLatch(1);
    final AtomicInteger heartbeats = new AtomicInteger();
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
            if (heartbeats.incrementAndGet() == 1) {
                try {
                    released.await(); // the stalled server: reads the request, never answers
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            answer(ex, 200, "{\"cancel\": false}");
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
        HttpAgentServer agent = new HttpAgentServer(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                "token", FAST);
        agent.register(new AgentInfo("host-1", 2, 4096, 10, "default", "test"), "key-1");

        long start = System.nanoTime();
        boolean cancel = agent.heartbeat(new TaskRef("job-1", 0, "lease-1"));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(cancel).isFalse();
        assertThat(heartbeats.get()).isEqualTo(2);
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
