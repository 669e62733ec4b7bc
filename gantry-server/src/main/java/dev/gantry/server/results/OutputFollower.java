package dev.gantry.server.results;

import dev.gantry.server.run.JobStatus;
import dev.gantry.server.run.TaskStatus;
import dev.gantry.server.storage.OutputStore;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jdbi.v3.core.Jdbi;

/**
 * Follows a job's output as server-sent events: {@code output} events carry new output, whole lines only (a partial
 * last line waits for its newline, or for the node's end), without the final newline, so a client prints each
 * event's data followed by a newline. Nodes come one after another, each after a header event when there are
 * several; when the job has ended and everything was sent, an {@code end} event carries the job's status and the
 * stream closes.
 *
 * <p>Each follower polls its node's output every {@link #POLL_EVERY}, so a line appears within that; it sends a
 * comment after {@link #KEEP_ALIVE_EVERY} of silence, which is how a client that went away is noticed, and then it
 * stops. Followers run on virtual threads of their own and stop when the server does ({@link #close()}).
 * Thread-safe.
 */
final class OutputFollower implements AutoCloseable {
    static final Duration POLL_EVERY = Duration.ofMillis(200);
    static final Duration KEEP_ALIVE_EVERY = Duration.ofSeconds(2);

    private final Jdbi jdbi;
    private final OutputStore output;
    private final ExecutorService followers = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("output-follower-", 0).factory());
    private final AtomicBoolean closed = new AtomicBoolean();

    OutputFollower(Jdbi jdbi, OutputStore output) {
        this.jdbi = jdbi;
        this.output = output;
    }

    /** Answers {@code ctx} with an event stream of {@code job}'s {@code nodes}. */
    void follow(Context ctx, JobResultsDao.Job job, List<Integer> nodes) throws IOException {
        HttpServletResponse res = ctx.res();
        res.setStatus(200);
        res.setCharacterEncoding("UTF-8");
        res.setContentType("text/event-stream");
        res.addHeader("Cache-Control", "no-cache");
        res.addHeader("X-Accel-Buffering", "no");
        res.flushBuffer();
        ctx.async(config -> {
            config.timeout = 0;
            config.executor = followers;
        }, () -> run(new SseClient(ctx), job, nodes));
    }

    private void run(SseClient client, JobResultsDao.Job job, List<Integer> nodes) throws InterruptedException,
            IOException {
        Silence silence = new Silence(client);
        for (int node : nodes) {
            if (nodes.size() > 1) {
                client.sendEvent("output", OutputRoutes.header(node, job.parallelism()));
            }
            if (!followNode(client, silence, job, node)) {
                return;
            }
        }
        while (true) {
            JobStatus status = jobStatus(job);
            if (status.terminal()) {
                client.sendEvent("end", status.word());
                return;
            }
            if (!pause(client, silence)) {
                return;
            }
        }
    }

    /** Sends the node's output until its task (or the job) has ended; false when the client or server went. */
    private boolean followNode(SseClient client, Silence silence, JobResultsDao.Job job, int node)
            throws InterruptedException, IOException {
        long offset = 0;
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        while (true) {
            // Read whether it ended before reading the output: what was written before the end is then all there.
            boolean ended = nodeEnded(job, node);
            try (InputStream in = output.read(job.id(), node, offset)) {
                byte[] fresh = in.readAllBytes();
                offset += fresh.length;
                partial.write(fresh);
            }
            byte[] pending = partial.toByteArray();
            int lastNewline = lastIndexOf(pending, (byte) '\n');
            if (lastNewline >= 0) {
                client.sendEvent("output", new String(pending, 0, lastNewline, StandardCharsets.UTF_8));
                silence.reset();
                partial.reset();
                partial.write(pending, lastNewline + 1, pending.length - lastNewline - 1);
            }
            if (ended) {
                if (partial.size() > 0) {
                    client.sendEvent("output", partial.toString(StandardCharsets.UTF_8));
                }
                return !client.terminated();
            }
            if (!pause(client, silence)) {
                return false;
            }
        }
    }

    /** Waits one poll; false when the follow should stop. */
    private boolean pause(SseClient client, Silence silence) throws InterruptedException {
        Thread.sleep(POLL_EVERY);
        silence.keepAlive();
        return !client.terminated() && !closed.get();
    }

    private boolean nodeEnded(JobResultsDao.Job job, int node) {
        return jdbi.withExtension(JobResultsDao.class, jobs -> {
            boolean taskEnded = jobs.taskStatus(job.id(), node).map(s -> TaskStatus.ofWord(s).terminal())
                    .orElse(false);
            return taskEnded || jobs.find(job.id()).map(j -> JobStatus.ofWord(j.status()).terminal()).orElse(true);
        });
    }

    private JobStatus jobStatus(JobResultsDao.Job job) {
        return jdbi.withExtension(JobResultsDao.class, jobs -> jobs.find(job.id()))
                .map(j -> JobStatus.ofWord(j.status())).orElse(JobStatus.CANCELED);
    }

    private static int lastIndexOf(byte[] bytes, byte b) {
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** Sends a comment when nothing was sent for {@link #KEEP_ALIVE_EVERY}: writing is how a gone client shows. */
    private static final class Silence {
        private final SseClient client;
        private long since = System.nanoTime();

        Silence(SseClient client) {
            this.client = client;
        }

        void reset() {
            since = System.nanoTime();
        }

        void keepAlive() {
            if (System.nanoTime() - since >= KEEP_ALIVE_EVERY.toNanos()) {
                client.sendComment("keep-alive");
                reset();
            }
        }
    }

    /** Ends every follow at its next poll. */
    @Override
    public void close() {
        closed.set(true);
    }
}
