package dev.gantry.testkit;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A TCP load balancer on loopback, modelling what an operator puts in front of several {@code gantry server}
 * processes (HAProxy or nginx in TCP mode with active health checks), so tests and the chaos driver see what real
 * clients see when one server dies or stalls.
 *
 * <ul>
 *   <li>Each accepted connection goes to the next healthy backend, round-robin; if connecting to it fails, the next
 *       one is tried. Bytes are piped both ways; when either side closes or fails, both are closed.</li>
 *   <li>Every {@link #CHECK_INTERVAL} each backend gets {@code GET healthPath}; any HTTP answer below 500 within
 *       about {@link #CHECK_TIMEOUT} counts as healthy. {@link #FAILURES_TO_LEAVE} failed checks in a row take a
 *       backend out of rotation, one success brings it back. New backends start in rotation.</li>
 *   <li>If no backend is healthy, all of them are tried: a client is better served by a chance than by a refusal.</li>
 * </ul>
 *
 * <p>Thread-safe. Connections and health checks run on virtual threads; {@link #close()} stops the listener, the
 * checks and every piped connection.
 */
public final class TcpBalancer implements AutoCloseable {
    /** How often each backend's health is checked. */
    public static final Duration CHECK_INTERVAL = Duration.ofMillis(500);
    /** How long one health check may take (connect, then the status line). */
    public static final Duration CHECK_TIMEOUT = Duration.ofSeconds(1);
    /** Failed checks in a row that take a backend out of rotation. */
    public static final int FAILURES_TO_LEAVE = 2;

    private static final int CONNECT_TIMEOUT_MILLIS = 1_000;

    private final ServerSocket listener;
    private final String healthPath;
    private final AtomicInteger nextBackend = new AtomicInteger();
    private final Set<Socket> openSockets = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService checkTimer;
    private volatile List<Backend> backends;
    private volatile boolean closed;

    private TcpBalancer(ServerSocket listener, List<URI> backends, String healthPath) {
        this.listener = listener;
        this.healthPath = healthPath;
        this.backends = toBackends(backends, Map.of());
        this.checkTimer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("tcp-balancer-checks").factory());
    }

    /**
     * Starts a balancer on 127.0.0.1 at a free port.
     *
     * @param backends   base URLs of the backends ({@code http://host:port}); only host and port are used
     * @param healthPath the path health checks ask for, e.g. {@code /healthz}
     */
    public static TcpBalancer start(List<URI> backends, String healthPath) {
        Objects.requireNonNull(healthPath, "healthPath");
        if (!healthPath.startsWith("/")) {
            throw new IllegalArgumentException("healthPath must start with '/', got " + healthPath);
        }
        ServerSocket listener;
        try {
            listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1", e);
        }
        TcpBalancer balancer = new TcpBalancer(listener, backends, healthPath);
        Thread.ofPlatform().daemon().name("tcp-balancer-accept-" + listener.getLocalPort()).start(balancer::acceptLoop);
        balancer.checkTimer.scheduleWithFixedDelay(balancer::checkAll, 0, CHECK_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
        return balancer;
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code http://127.0.0.1:PORT}. */
    public URI url() {
        return URI.create("http://127.0.0.1:" + port());
    }

    /**
     * Replaces the backends. Backends already known (same host and port) keep their health; new ones start in
     * rotation. Connections already piped are left alone.
     */
    public void backends(List<URI> replacement) {
        Map<InetSocketAddress, Backend> known = backends.stream()
                .collect(Collectors.toMap(b -> b.address, Function.identity(), (a, b) -> a));
        backends = toBackends(replacement, known);
    }

    /** The backends currently in rotation, in configured order. */
    public List<URI> healthy() {
        return backends.stream().filter(b -> b.healthy).map(b -> b.uri).toList();
    }

    @Override
    public void close() {
        closed = true;
        checkTimer.shutdownNow();
        closeQuietly(listener);
        for (Socket socket : openSockets) {
            closeQuietly(socket);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue; // a failed accept (e.g. too many open files) concerns one client, not the balancer
            }
            Thread.ofVirtual().start(() -> route(client));
        }
    }

    private void route(Socket client) {
        openSockets.add(client);
        Socket upstream = connectToNext();
        if (upstream == null) {
            closeBoth(client, client);
            return;
        }
        openSockets.add(upstream);
        if (closed) { // close() may have run between its sweep and our add
            closeBoth(client, upstream);
            return;
        }
        Thread.ofVirtual().start(() -> pipe(client, upstream));
        pipe(upstream, client);
    }

    /** The next backend in rotation that accepts a connection, or null when none does. */
    private Socket connectToNext() {
        List<Backend> all = backends;
        List<Backend> candidates = all.stream().filter(b -> b.healthy).toList();
        if (candidates.isEmpty()) {
            candidates = all;
        }
        int start = Math.floorMod(nextBackend.getAndIncrement(), Math.max(1, candidates.size()));
        for (int i = 0; i < candidates.size(); i++) {
            Backend backend = candidates.get((start + i) % candidates.size());
            Socket socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(backend.address, CONNECT_TIMEOUT_MILLIS);
                return socket;
            } catch (IOException e) {
                closeQuietly(socket);
            }
        }
        return null;
    }

    private void pipe(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // a reset or a closed peer ends the connection like an orderly close does
        } finally {
            closeBoth(from, to);
        }
    }

    private void closeBoth(Socket a, Socket b) {
        closeQuietly(a);
        closeQuietly(b);
        openSockets.remove(a);
        openSockets.remove(b);
    }

    private void checkAll() {
        for (Backend backend : backends) {
            // one check at a time per backend: a stalled backend must not pile up checks
            if (backend.checking.compareAndSet(false, true)) {
                Thread.ofVirtual().start(() -> {
                    try {
                        backend.record(answersHealthy(backend));
                    } finally {
                        backend.checking.set(false);
                    }
                });
            }
        }
    }

    /**
     * One health check over a fresh connection (no pooling, so a backend restarted on the same port is seen as it is
     * now): true for any HTTP status below 500.
     */
    private boolean answersHealthy(Backend backend) {
        long deadline = System.nanoTime() + CHECK_TIMEOUT.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(backend.address, (int) CHECK_TIMEOUT.toMillis());
            socket.setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            String request = "GET " + healthPath + " HTTP/1.1\r\nHost: " + backend.uri.getAuthority()
                    + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            String statusLine = readLine(new BufferedInputStream(socket.getInputStream()));
            String[] parts = statusLine.split(" ");
            return parts.length >= 2 && parts[0].startsWith("HTTP/") && Integer.parseInt(parts[1]) < 500;
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n' && line.length() < 200) {
            line.append((char) c);
        }
        return line.toString().strip();
    }

    private static List<Backend> toBackends(List<URI> uris, Map<InetSocketAddress, Backend> known) {
        List<Backend> result = new ArrayList<>();
        for (URI uri : uris) {
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("a backend needs a host and a port, got " + uri);
            }
            InetSocketAddress address = new InetSocketAddress(uri.getHost(), uri.getPort());
            result.add(known.getOrDefault(address, new Backend(uri, address)));
        }
        return List.copyOf(result);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // nothing to do: the socket is gone either way
        }
    }

    /** A backend and its health; {@code failures} is written only by the one check in flight. */
    private static final class Backend {
        final URI uri;
        final InetSocketAddress address;
        final AtomicBoolean checking = new AtomicBoolean();
        volatile int failures;
        volatile boolean healthy = true;

        Backend(URI uri, InetSocketAddress address) {
            this.uri = uri;
            this.address = address;
        }

        void record(boolean ok) {
            failures = ok ? 0 : failures + 1;
            healthy = failures < FAILURES_TO_LEAVE;
        }
    }
}
