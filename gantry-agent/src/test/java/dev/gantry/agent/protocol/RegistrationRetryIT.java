package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A registration whose answer is lost (a balancer answers 502 after the server behind it registered the agent) is
 * sent again with the same {@code Idempotency-Key}, so that the server returns the agent it made instead of a second.
 */
class RegistrationRetryIT {
    HttpServer server;
    final List<String> keys = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/agent/v1/register", ex -> {
            ex.getRequestBody().readAllBytes();
            keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
            byte[] body = (keys.size() == 1 ? "{\"message\": \"bad gateway\"}" : """
                    {"id": "agent-1", "credential": "gnt_agentkey_test", "heartbeat_interval_ms": 1000,
                     "lease_timeout_ms": 3000, "poll_timeout_ms": 1000}""").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(keys.size() == 1 ? 502 : 200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void a_registration_sent_again_carries_the_same_idempotency_key() throws Exception {
        HttpAgentServer agent = new HttpAgentServer(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                "token", new RetryPolicy(Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(10)));

        Registration registration = agent.register(new AgentInfo("host-1", 2, 4096, 10, "default", "test"), "key-1");

        assertThat(registration.id()).isEqualTo("agent-1");
        assertThat(keys).containsExactly("key-1", "key-1");
    }
}
