package dev.gantry.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A server-sent event stream read over real HTTP as a browser's EventSource reads it: events parsed from their
 * {@code id:}, {@code event:} and {@code data:} lines, comments skipped. {@link #close()} drops the connection, as a
 * closed tab does. Not thread-safe: one test thread reads it.
 */
final class EventStream implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);

    /** One event; {@code id} is the last id the stream gave (null before any), as EventSource keeps it. */
    record Event(String id, String name, String data) {
    }

    private final HttpClient client;
    private final InputStream body;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Event> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch ended = new CountDownLatch(1);

    private EventStream(HttpClient client, InputStream body) {
        this.client = client;
        this.body = body;
        Thread.ofVirtual().name("event-stream-reader").start(this::read);
    }

    /** Opens the stream of {@code uri} with the session {@code cookie}; fails unless it answers 200 with events. */
    static EventStream open(URI uri, String cookie, String lastEventId) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream")
                .header("Cookie", cookie);
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200 || !response.headers().firstValue("Content-Type").orElse("")
                .startsWith("text/event-stream")) {
            response.body().close();
            client.shutdownNow();
            throw new AssertionError("not an event stream: " + response.statusCode() + " " + response.headers());
        }
        return new EventStream(client, response.body());
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String id = null;
            String name = "message";
            StringBuilder data = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isEmpty()) {
                    if (data != null) {
                        Event event = new Event(id, name, data.toString());
                        received.add(event);
                        events.add(event);
                    }
                    name = "message";
                    data = null;
                } else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data = data == null ? new StringBuilder() : data.append('\n');
                    data.append(line.substring(6));
                }
            }
        } catch (IOException e) {
            // closed by the test, or the server went away: the stream has ended either way
        } finally {
            ended.countDown();
        }
    }

    /** The next event, which must be named {@code name}. */
    Event next(String name) throws InterruptedException {
        Event event = events.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (event == null || !event.name().equals(name)) {
            throw new AssertionError("expected a '" + name + "' event, got " + event + " after " + received);
        }
        return event;
    }

    /** The first event from now on that {@code wanted} accepts, within {@link #WAIT}. */
    Event until(Predicate<Event> wanted) throws InterruptedException {
        return until(wanted, WAIT);
    }

    Event until(Predicate<Event> wanted, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            Event event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (event == null) {
                throw new AssertionError("no such event within " + within + "; received " + received);
            }
            if (wanted.test(event)) {
                return event;
            }
        }
    }

    /** Every event so far. */
    List<Event> received() {
        return List.copyOf(received);
    }

    /** Waits until the server has ended the response. */
    void awaitClosed() throws InterruptedException {
        if (!ended.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the server did not end the stream within " + WAIT);
        }
    }

    @Override
    public void close() throws IOException {
        body.close();
        client.shutdownNow();
    }
}
