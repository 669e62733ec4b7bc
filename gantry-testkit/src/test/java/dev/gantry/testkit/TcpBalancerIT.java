package dev.gantry.testkit;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TcpBalancerIT {
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable closeable : toClose.reversed()) {
            closeable.close();
        }
    }

    @Test
    void connections_take_turns_over_the_backends() throws Exception {
        HttpServer a = server("a", 200);
        HttpServer b = server("b", 200);
        TcpBalancer balancer = balancer(List.of(url(a), url(b)));

        Set<String> answers = new HashSet<>();
        for (int i = 0; i < 6; i++) {
            answers.add(get(balancer, "/who"));
        }

        assertThat(answers).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void a_stopped_backend_gets_no_traffic_within_a_second_and_a_half() throws Exception {
        HttpServer a = server("a", 200);
        HttpServer b = server("b", 200);
        TcpBalancer balancer = balancer(List.of(url(a), url(b)));

        a.stop(0);
        Thread.sleep(1_500);

        assertThat(balancer.healthy()).containsExactly(url(b));
        for (int i = 0; i < 6; i++) {
            assertThat(get(balancer, "/who")).isEqualTo("b");
        }
    }

    @Test
    void a_backend_that_accepts_but_never_answers_leaves_the_rotation() throws Exception {
        // Like a SIGSTOPped server: the kernel completes the handshake, nobody ever reads.
        ServerSocket stalled = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        toClose.add(stalled);
        URI stalledUrl = URI.create("http://127.0.0.1:" + stalled.getLocalPort());
        HttpServer b = server("b", 200);
        TcpBalancer balancer = balancer(List.of(stalledUrl, url(b)));

        long deadline = System.nanoTime() + 4_000_000_000L;
        while (balancer.healthy().contains(stalledUrl) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }

        assertThat(balancer.healthy()).containsExactly(url(b));
        for (int i = 0; i < 6; i++) {
            assertThat(get(balancer, "/who")).isEqualTo("b");
        }
    }

    @Test
    void a_backend_comes_back_after_one_good_check() throws Exception {
        HttpServer b = server("b", 200);
        int port = b.getAddress().getPort();
        TcpBalancer balancer = balancer(List.of(url(b)));
        b.stop(0);
        waitUntil(() -> balancer.healthy().isEmpty());

        server("b-again", 200, port);
        waitUntil(() -> !balancer.healthy().isEmpty());

        assertThat(get(balancer, "/who")).isEqualTo("b-again");
    }

    @Test
    void when_no_backend_is_healthy_all_are_still_tried() throws Exception {
        HttpServer a = server("a", 503);
        TcpBalancer balancer = balancer(List.of(URI.create("http://127.0.0.1:" + freePort()), url(a)));
        waitUntil(() -> balancer.healthy().isEmpty());

        assertThat(get(balancer, "/who")).isEqualTo("a");
    }

    @Test
    void close_ends_piped_connections() throws Exception {
        ServerSocket holder = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        toClose.add(holder);
        Thread.ofVirtual().start(() -> {
            try {
                Socket held = holder.accept(); // accepted and kept open, never written to
                toClose.add(held);
            } catch (IOException e) {
                // the test closed the holder
            }
        });
        TcpBalancer balancer = TcpBalancer.start(List.of(URI.create("http://127.0.0.1:" + holder.getLocalPort())),
                "/healthz");
        try (Socket client = new Socket("127.0.0.1", balancer.port())) {
            client.setSoTimeout(3_000);
            Thread.sleep(200);

            balancer.close();

            int read;
            try {
                read = client.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the piped connection stayed open after close()", e);
            } catch (IOException e) {
                read = -1; // a reset is a close too
            }
            assertThat(read).isEqualTo(-1);
        }
    }

    private TcpBalancer balancer(List<URI> backends) {
        TcpBalancer balancer = TcpBalancer.start(backends, "/healthz");
        toClose.add(balancer);
        return balancer;
    }

    private HttpServer server(String name, int healthStatus) throws IOException {
        return server(name, healthStatus, 0);
    }

    /** A backend that answers its name on /who and {@code healthStatus} on /healthz. */
    private HttpServer server(String name, int healthStatus, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        server.createContext("/who", exchange -> {
            byte[] body = name.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/healthz", exchange -> {
            exchange.sendResponseHeaders(healthStatus, -1);
            exchange.close();
        });
        server.start();
        toClose.add(() -> server.stop(0));
        return server;
    }

    private static URI url(HttpServer server) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** One request on its own connection, so every request is balanced afresh. */
    private static String get(TcpBalancer balancer, String path) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) balancer.url().resolve(path).toURL().openConnection();
        connection.setRequestProperty("Connection", "close");
        connection.setConnectTimeout(2_000);
        connection.setReadTimeout(2_000);
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            Thread.sleep(50);
        }
    }
}
