package dev.gantry.agent.protocol;

import dev.gantry.resilience.RetryBudget;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server on loopback that fails every other request with 503, as a server losing half its requests does. The agent's
 * calls go one after the other, so a request that follows a failure within 100 ms is a quick retry; the policy makes
 * a retry over budget wait at least 150 ms.
 */
class RetryBudgetIT {
    static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(300), Duration.ofSeconds(30));

    HttpServer server;
    final List<Long> failedAt = new ArrayList<>();
    final List<Long> requestAt = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            int status;
            synchronized (this) {
                requestAt.add(System.nanoTime());
                status = requestAt.size() % 2 == 1 ? 503 : 200;
                if (status == 503) {
                    failedAt.add(System.nanoTime());
                }
            }
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(status, -1);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void against_a_server_failing_half_its_requests_quick_retries_stay_within_a_tenth_of_the_calls_and_the_burst()
            throws Exception {
        URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        HttpCalls calls = new HttpCalls(base.toString(), base, "token", FAST, new RetryBudget(0.1, 2));
        int callCount = 30;
        for (int k = 0; k < callCount; k++) {
            HttpCalls.Reply reply = calls.send("ping", null, calls.request("/ping").GET().build(), null);
            assertThat(reply.status()).isEqualTo(200);
        }

        int quick = 0;
        synchronized (this) {
            // every call failed once and succeeded on its retry: 30 failures, 30 retries
            assertThat(requestAt).hasSize(2 * callCount);
            for (int k = 1; k < requestAt.size(); k += 2) {
                if (requestAt.get(k) - failedAt.get(k / 2) < Duration.ofMillis(100).toNanos()) {
                    quick++;
                }
            }
        }
        // 2 saved + 30 calls × 0.1 = 5 quick retries at most; without a budget all 30 would be quick
        assertThat(quick).isLessThanOrEqualTo(5);
    }
}
