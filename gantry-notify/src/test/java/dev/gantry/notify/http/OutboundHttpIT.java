package dev.gantry.notify.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboundHttp} against a real server on 127.0.0.1: a slow answer within the timeout, a server that never
 * answers, one that sends headers and then stalls the body, a body over the size limit, and redirects.
 */
class OutboundHttpIT {
    // Roomy: a first call on a loaded 2-core machine (class loading, the TLS contexts) took 800 ms.
    static final Duration TOTAL = Duration.ofSeconds(2);
    static final int LIMIT = 1024;

    final OutboundHttp http = new OutboundHttp(new OutboundHttp.Settings(Duration.ofSeconds(2), TOTAL, LIMIT,
            "test/1.0"), AddressRule.ANY_NETWORK);
    final CountDownLatch released = new CountDownLatch(1);
    final ExecutorService threads = Executors.newCachedThreadPool();
    HttpServer server;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.setExecutor(threads);
        server.createContext("/ok", e -> answer(e, 200, "fine".getBytes()));
        server.createContext("/slow", e -> {
            pause(300);
            answer(e, 200, "late but fine".getBytes());
        });
        server.createContext("/hang", e -> {
            await();
            answer(e, 200, new byte[0]);
        });
        server.createContext("/stall", e -> {
            e.sendResponseHeaders(200, 100);
            e.getResponseBody().write("the first bytes".getBytes());
            e.getResponseBody().flush();
            await();
            e.close();
        });
        server.createContext("/big", e -> answer(e, 200, new byte[1024 * 1024]));
        server.createContext("/keep", e -> redirect(e, 307, "/ok"));
        server.createContext("/moved", e -> redirect(e, 302, "/ok"));
        server.createContext("/loop", e -> redirect(e, 308, "/loop"));
        server.createContext("/elsewhere", e -> redirect(e, 307, "ftp://127.0.0.1/file"));
        server.start();
    }

    @AfterEach
    void stop() {
        released.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    @Test
    void a_slow_answer_within_the_timeout_is_the_answer() throws Exception {
        OutboundHttp.Answer answer = http.post(post("/slow"));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(new String(answer.body())).isEqualTo("late but fine");
    }

    @Test
    void a_server_that_never_answers_is_cut_off_at_the_total_timeout() {
        long started = System.nanoTime();

        assertThatThrownBy(() -> http.post(post("/hang"))).isInstanceOf(OutboundHttp.CallFailed.class)
                .hasMessage("timed out after 2000 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(TOTAL, TOTAL.plusSeconds(2));
    }

    @Test
    void a_server_that_stalls_in_the_body_is_cut_off_at_the_total_timeout_too() {
        long started = System.nanoTime();

        assertThatThrownBy(() -> http.post(post("/stall"))).isInstanceOf(OutboundHttp.CallFailed.class)
                .hasMessage("timed out after 2000 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(TOTAL, TOTAL.plusSeconds(2));
    }

    @Test
    void only_the_first_bytes_of_a_large_body_are_read() throws Exception {
        OutboundHttp.Answer answer = http.post(post("/big"));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).hasSize(LIMIT);
    }

    @Test
    void a_redirect_that_keeps_the_method_is_followed_and_any_other_is_the_answer() throws Exception {
        OutboundHttp.Answer followed = http.post(post("/keep"));
        assertThat(followed.status()).isEqualTo(200);
        assertThat(followed.url().getPath()).isEqualTo("/ok");

        OutboundHttp.Answer moved = http.post(post("/moved"));
        assertThat(moved.status()).isEqualTo(302);
        assertThat(moved.success()).isFalse();
    }

    @Test
    void redirects_stop_after_the_limit_and_at_a_url_the_client_may_not_call() {
        assertThatThrownBy(() -> http.post(post("/loop"))).isInstanceOf(OutboundHttp.CallFailed.class)
                .hasMessage("more than " + OutboundHttp.MAX_REDIRECTS + " redirects");
        assertThatThrownBy(() -> http.post(post("/elsewhere"))).isInstanceOf(OutboundHttp.CallFailed.class)
                .hasMessageStartingWith("a redirect to ftp://127.0.0.1/file ");
    }

    @Test
    void a_closed_port_is_a_refused_connection() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        URI url = URI.create("http://127.0.0.1:" + port + "/");

        assertThatThrownBy(() -> http.post(new OutboundHttp.Post(url, new byte[0], Map.of(), true)))
                .isInstanceOf(OutboundHttp.CallFailed.class).hasMessage("connection refused");
    }

    private OutboundHttp.Post post(String path) {
        return new OutboundHttp.Post(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path),
                "{}".getBytes(), Map.of("Content-Type", "application/json"), true);
    }

    private static void answer(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        } catch (IOException e) {
            // the client stopped reading at its limit
        }
    }

    private static void redirect(HttpExchange exchange, int status, String location) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().add("Location", location);
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    private void await() {
        try {
            released.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
