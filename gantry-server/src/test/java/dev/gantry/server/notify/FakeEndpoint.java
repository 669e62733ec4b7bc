package dev.gantry.server.notify;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A webhook receiver on 127.0.0.1 for tests, a real server so requests really cross a socket. It answers as its
 * {@link Mode} says: 200, 500, slowly, never (it holds the request until closed), or by resetting the connection.
 * Records every request it read. Thread-safe.
 */
public final class FakeEndpoint implements AutoCloseable {
    /** How the endpoint answers. */
    public enum Mode { OK, FAIL, SLOW, HANG, RESET }

    /**
     * One request as received, with the time it arrived (System.nanoTime) and what it was answered; {@code rawPath}
     * keeps its escapes ({@code %2F}).
     */
    public record Received(String method, String path, String rawPath, Map<String, List<String>> headers, byte[] body,
                           long arrivedNanos, int answered) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    private final HttpServer server;
    private volatile Mode mode;
    private volatile long slowMillis = 200;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();
    private final Object hanging = new Object();
    private volatile boolean closed;

    public FakeEndpoint(Mode mode) throws IOException {
        this.mode = mode;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    public URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    public void mode(Mode mode) {
        this.mode = mode;
    }

    public void slowMillis(long millis) {
        this.slowMillis = millis;
    }

    /** Requests that reached the endpoint, whatever it answered. */
    public int calls() {
        return calls.get();
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /** Requests answered 2xx. */
    public List<Received> accepted() {
        return received.stream().filter(r -> r.answered() >= 200 && r.answered() < 300).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        calls.incrementAndGet();
        byte[] body = exchange.getRequestBody().readAllBytes();
        long arrived = System.nanoTime();
        Mode now = mode;
        try {
            switch (now) {
                case OK -> answer(exchange, 200, body, arrived);
                case FAIL -> answer(exchange, 500, body, arrived);
                case SLOW -> {
                    sleep(slowMillis);
                    answer(exchange, 200, body, arrived);
                }
                case HANG -> {
                    synchronized (hanging) {
                        while (!closed) {
                            hanging.wait(1000);
                        }
                    }
                    received.add(received(exchange, body, arrived, 0));
                }
                case RESET -> {
                    received.add(received(exchange, body, arrived, 0));
                    // Abandons the exchange: the socket closes with nothing written.
                    exchange.close();
                    throw new IOException("reset on purpose");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exchange.close();
        }
    }

    private void answer(HttpExchange exchange, int status, byte[] body, long arrived) throws IOException {
        received.add(received(exchange, body, arrived, status));
        byte[] reply = "{}".getBytes();
        exchange.sendResponseHeaders(status, reply.length);
        exchange.getResponseBody().write(reply);
    }

    private static Received received(HttpExchange exchange, byte[] body, long arrived, int status) {
        return new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                exchange.getRequestURI().getRawPath(), exchange.getRequestHeaders(), body, arrived, status);
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    @Override
    public void close() {
        closed = true;
        synchronized (hanging) {
            hanging.notifyAll();
        }
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
