package dev.gantry.server.ui;

import dev.gantry.server.auth.Role;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.job.JobDetailsJson;
import dev.gantry.server.project.ProjectSlug;
import dev.gantry.server.storage.OutputStore;
import io.javalin.http.Context;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event streams of live pages: {@code GET /jobs/…/{number}/events?node=K} for a running job's page and
 * {@code GET /pipelines/…/{number}/events} for a running pipeline's. A stream sends what changed since the page (or
 * its last event) and ends, with an {@code end} event, once the job or pipeline has finished and its final state was
 * sent. Each {@code change} event's data is a JSON array of changes to elements by id, which {@code live.js} applies:
 * {@code inner} (replace the content of {@code target}), {@code add} (append {@code html} to {@code target} unless an
 * element with id {@code id} is there) and {@code output} (insert a step's finished {@code lines} before its tail,
 * {@code target}, and make {@code tail} the tail's content). A job's events carry the page's place in the output as
 * their id ({@link LiveOutput.Cursor}), so that a reconnect, which sends it back as {@code Last-Event-ID} (or
 * {@code ?from=} when the script reconnects itself), goes on from there: nothing twice, nothing lost.
 *
 * <p>A stream waits for its {@link LiveChanges.Watch} without a database connection and reads only when woken (or,
 * for a waiting job, every {@link #WAITING_RECHECK}, since why it waits can change with the fleet). It sends a comment
 * after {@link #HEARTBEAT} of silence, so that proxies keep it open and a browser that went away is noticed, and asks
 * as often whether its session is still valid and may still see the project; when not, it ends with a note. At most
 * {@link #MAX_STREAMS} streams are open per server: one more is answered with a {@code busy} event and a retry time
 * of {@link #BUSY_RETRY} (the page stays as it was rendered and says so). Streams run on virtual threads and end when
 * the server stops ({@link #close()}), and their browsers reconnect, to another server if there is one. Thread-safe.
 */
final class LiveStreams implements AutoCloseable {
    /** The most streams open at once on one server. */
    static final int MAX_STREAMS = 500;
    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    static final Duration WAITING_RECHECK = Duration.ofSeconds(5);
    /** How soon a browser reconnects after a stream broke off. */
    static final Duration RECONNECT = Duration.ofSeconds(2);
    static final Duration BUSY_RETRY = Duration.ofSeconds(30);
    /** The most output one event carries; more follows at once in the next. */
    static final int EVENT_OUTPUT_BYTES = 256 << 10;
    private static final Logger LOG = LoggerFactory.getLogger(LiveStreams.class);

    private final WebUi ui;
    private final LiveChanges changes;
    private final UiReads reads;
    private final OutputStore output;
    private final InstantSource clock;
    private final Semaphore slots;
    private final AtomicInteger open = new AtomicInteger();
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("ui-live-", 0).factory());
    private volatile boolean closed;

    LiveStreams(WebUi ui, LiveChanges changes, UiReads reads, OutputStore output, InstantSource clock,
                int maxStreams) {
        this.ui = ui;
        this.changes = changes;
        this.reads = reads;
        this.output = output;
        this.clock = clock;
        this.slots = new Semaphore(maxStreams);
    }

    /** How many streams are open now. */
    int open() {
        return open.get();
    }

    /** Answers with the stream of {@code job}'s page for {@code node}. */
    void job(Context ctx, UiSessions.Session session, ProjectSlug slug, JobDetailsJson job, int node)
            throws IOException {
        LiveOutput.Cursor from = LiveOutput.Cursor.parse(ctx.header("Last-Event-ID"))
                .or(() -> LiveOutput.Cursor.parse(ctx.queryParam("from")))
                .orElse(LiveOutput.Cursor.start(0));
        stream(ctx, slug, stream -> followJob(stream, session, slug, job, node, from));
    }

    /** Answers with the stream of pipeline {@code number}'s page. */
    void pipeline(Context ctx, UiSessions.Session session, ProjectSlug slug, long number) throws IOException {
        UUID id = reads.pipeline(slug, number)
                .orElseThrow(() -> ApiException.notFound("no pipeline " + number + " in project " + slug)).id();
        stream(ctx, slug, stream -> followPipeline(stream, session, slug, number, id));
    }

    private interface Follow {
        void run(Stream stream) throws IOException, InterruptedException;
    }

    private void stream(Context ctx, ProjectSlug slug, Follow follow) throws IOException {
        HttpServletResponse res = ctx.res();
        res.setStatus(200);
        res.setCharacterEncoding("UTF-8");
        res.setContentType("text/event-stream");
        res.setHeader("Cache-Control", "no-store");
        res.setHeader("X-Accel-Buffering", "no"); // nginx: pass events on at once
        if (closed || !slots.tryAcquire()) {
            Events busy = new Events(res.getOutputStream());
            busy.retry(BUSY_RETRY);
            busy.event("busy", null, "Live updates are paused: this server has as many live pages open as it "
                    + "allows. It tries again in " + BUSY_RETRY.toSeconds() + " s; reload the page to see the latest.");
            return;
        }
        String cookie = ctx.cookie(UiSessions.COOKIE);
        open.incrementAndGet();
        try {
            res.flushBuffer();
            ctx.async(config -> {
                config.timeout = 0; // a stream lasts as long as its job; heartbeats notice a browser gone
                config.executor = threads;
            }, () -> {
                try {
                    Events events = new Events(res.getOutputStream());
                    events.retry(RECONNECT);
                    follow.run(new Stream(events, cookie, slug));
                } catch (IOException gone) {
                    LOG.debug("A live page's browser went away: {}", gone.toString());
                } catch (RuntimeException e) {
                    // The browser reconnects after RECONNECT and goes on from its last event.
                    LOG.warn("A live page's stream failed; its browser reconnects", e);
                } finally {
                    release();
                }
            });
        } catch (IOException | RuntimeException e) {
            release();
            throw e;
        }
    }

    private void release() {
        open.decrementAndGet();
        slots.release();
    }

    private void followJob(Stream stream, UiSessions.Session session, ProjectSlug slug, JobDetailsJson first,
                           int node, LiveOutput.Cursor from) throws IOException, InterruptedException {
        try (LiveChanges.Watch watch = changes.watch(new LiveChanges.JobKey(first.id(), node))) {
            String head = null;
            Map<Integer, String> summaries = new HashMap<>();
            LiveOutput.Cursor cursor = from;
            long pipeline = reads.pipelineNumber(first.pipeline().id());
            while (true) {
                long generation = watch.generation();
                Optional<JobDetailsJson> read = ui.jobDetails(slug, first.number());
                if (read.isEmpty() || !read.get().id().equals(first.id())) {
                    stream.end("This job is no longer there.");
                    return;
                }
                JobDetailsJson job = read.get();
                boolean live = WebUi.live(job);
                List<Map<String, String>> sent = new ArrayList<>();
                List<WebUi.StepOutput> steps = WebUi.steps(job, node, List.of(), clock.instant());
                String newHead = ui.html("job_head.jte", ui.jobPage(session, slug, pipeline, job, node, steps, false,
                        0, null));
                if (!newHead.equals(head)) {
                    sent.add(change("inner", "job-head", "html", newHead));
                    head = newHead;
                }
                for (WebUi.StepOutput step : steps) {
                    String summary = ui.html("job_step_summary.jte", step);
                    String before = summaries.put(step.index(), summary);
                    if (before == null) { // the page may not have it: added unless it has
                        Map<String, String> add = change("add", "steps", "html", ui.html("job_step.jte", step));
                        add.put("id", "step-" + step.index());
                        sent.add(add);
                    }
                    if (!summary.equals(before)) {
                        sent.add(change("inner", "step-" + step.index() + "-summary", "html", summary));
                    }
                }
                // The output is read after the job: when the job had ended, all it wrote is there by now.
                List<UiReads.StepOffset> offsets = reads.stepOffsets(job.id()).stream()
                        .filter(o -> o.node() == node).toList();
                long length = WebUi.read(() -> output.length(job.id(), node));
                long upTo = Math.min(length, cursor.offset() + EVENT_OUTPUT_BYTES);
                long start = Math.min(cursor.offset(), upTo);
                byte[] bytes = WebUi.read(() -> {
                    try (InputStream in = output.read(job.id(), node, start)) {
                        return in.readNBytes((int) (upTo - start));
                    }
                });
                boolean more = upTo < length;
                LiveOutput.Delta delta = LiveOutput.advance(cursor, bytes, offsets, live || more);
                for (LiveOutput.Part part : delta.parts()) {
                    Map<String, String> out = change("output", "out-" + part.step() + "-tail", "lines", part.lines());
                    out.put("tail", part.tail());
                    sent.add(out);
                }
                cursor = delta.next();
                if (!sent.isEmpty()) {
                    stream.change(cursor.id(), sent);
                }
                if (more) {
                    continue;
                }
                if (!live) {
                    stream.end("");
                    return;
                }
                if (!stream.await(watch, generation, job.waiting() != null ? WAITING_RECHECK : HEARTBEAT)) {
                    return;
                }
            }
        }
    }

    private void followPipeline(Stream stream, UiSessions.Session session, ProjectSlug slug, long number, UUID id)
            throws IOException, InterruptedException {
        try (LiveChanges.Watch watch = changes.watch(new LiveChanges.PipelineKey(id))) {
            String shown = null;
            while (true) {
                long generation = watch.generation();
                Optional<WebUi.PipelinePage> page = ui.pipelinePage(session, slug, number);
                if (page.isEmpty()) {
                    stream.end("This pipeline is no longer there.");
                    return;
                }
                String html = ui.html("pipeline_workflows.jte", page.get());
                if (!html.equals(shown)) {
                    stream.change(null, List.of(change("inner", "workflows", "html", html)));
                    shown = html;
                }
                if (!page.get().live()) {
                    stream.end("");
                    return;
                }
                if (!stream.await(watch, generation, HEARTBEAT)) {
                    return;
                }
            }
        }
    }

    private static Map<String, String> change(String op, String target, String field, String value) {
        Map<String, String> change = new LinkedHashMap<>();
        change.put("op", op);
        change.put("target", target);
        change.put(field, value);
        return change;
    }

    /** Ends every stream (at once for those waiting, after its current read for the others) and waits briefly. */
    @Override
    public void close() {
        closed = true;
        threads.shutdown();
        try {
            if (!threads.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("{} live page streams did not end within 5 s", open.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One open stream: its events, and the session it must keep having. */
    private final class Stream {
        private final Events events;
        private final String cookie;
        private final ProjectSlug slug;
        private long nextSessionCheck = System.nanoTime() + HEARTBEAT.toNanos();

        Stream(Events events, String cookie, ProjectSlug slug) {
            this.events = events;
            this.cookie = cookie;
            this.slug = slug;
        }

        void change(String id, List<Map<String, String>> changes) throws IOException {
            events.event("change", id, Json.write(changes));
        }

        void end(String note) throws IOException {
            events.event("end", null, note);
        }

        /**
         * Waits for a change after {@code generation}, at most {@code timeout}; sends a heartbeat when it has been
         * quiet and checks the session when that is due. False when the stream should end (the server stops, or
         * the session ended, which the page is told).
         */
        boolean await(LiveChanges.Watch watch, long generation, Duration timeout)
                throws IOException, InterruptedException {
            Duration wait = Duration.ofNanos(Math.min(timeout.toNanos(),
                    Math.max(0, events.lastWrite + HEARTBEAT.toNanos() - System.nanoTime())));
            watch.await(generation, wait);
            if (closed || changes.closed()) {
                return false;
            }
            long now = System.nanoTime();
            if (now - nextSessionCheck >= 0) {
                nextSessionCheck = now + HEARTBEAT.toNanos();
                Optional<UiSessions.Session> session = ui.session(cookie);
                if (session.isEmpty() || !WebUi.can(session.get(), slug, Role.VIEWER)) {
                    end("Your session has ended: sign in again to see live changes.");
                    return false;
                }
            }
            if (now - events.lastWrite >= HEARTBEAT.toNanos()) {
                events.comment("heartbeat");
            }
            return true;
        }
    }

    /** Writes server-sent events, each flushed at once. */
    private static final class Events {
        private final OutputStream out;
        private long lastWrite = System.nanoTime();

        Events(OutputStream out) {
            this.out = out;
        }

        void retry(Duration after) throws IOException {
            write("retry: " + after.toMillis() + "\n\n");
        }

        void event(String name, String id, String data) throws IOException {
            StringBuilder event = new StringBuilder();
            if (id != null) {
                event.append("id: ").append(id).append('\n');
            }
            event.append("event: ").append(name).append('\n');
            for (String line : data.split("\n", -1)) {
                event.append("data: ").append(line).append('\n');
            }
            write(event.append('\n').toString());
        }

        void comment(String text) throws IOException {
            write(": " + text + "\n\n");
        }

        private void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            lastWrite = System.nanoTime();
        }
    }
}
