package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentException;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.OutputOffsetException;
import dev.gantry.agent.protocol.TaskRef;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the node's output to the server: every {@code interval} (200 ms by default) whatever was written since the
 * last acknowledged offset, in chunks of at most {@link #CHUNK} bytes, each carrying its offset. A send that fails
 * is simply retried from the last acknowledged offset on the next tick; the server skips bytes it already has.
 * Runs on its own virtual thread; at the end the task thread takes what is left with {@link #unsent} (for the
 * completion to carry) or {@link #drain}. Thread-safe.
 */
final class OutputShipper {
    private static final Logger LOG = LoggerFactory.getLogger(OutputShipper.class);
    static final int CHUNK = 1 << 20;

    private final AgentServer server;
    private final TaskRef task;
    private final OutputLog log;
    private final TaskControl control;
    private final Duration interval;
    private final ReentrantLock sending = new ReentrantLock();
    private volatile long acknowledged;
    private volatile boolean running = true;
    private Thread thread;

    OutputShipper(AgentServer server, TaskRef task, OutputLog log, TaskControl control, Duration interval) {
        this.server = server;
        this.task = task;
        this.log = log;
        this.control = control;
        this.interval = interval;
    }

    void start() {
        thread = Thread.ofVirtual().name("output-" + task).start(() -> {
            while (running && !control.silent()) {
                try {
                    Thread.sleep(interval);
                    sendPending();
                } catch (InterruptedException e) {
                    return;
                } catch (AgentException e) {
                    LOG.debug("output of task {} not sent yet: {}", task, e.getMessage());
                }
            }
        });
    }

    /** Sends everything written so far; false if the server could not take it all. Stops the background loop. */
    boolean drain() throws InterruptedException {
        running = false;
        try {
            sendPending();
            return acknowledged == log.length();
        } catch (AgentException e) {
            LOG.warn("the last output of task {} could not be sent: {}", task, e.getMessage());
            return false;
        }
    }

    /** Output the server has not acknowledged: {@code bytes} from {@code offset} on. */
    record Unsent(long offset, byte[] bytes) {
    }

    /**
     * Stops the background loop and returns the output the server has not acknowledged, for the completion to carry,
     * if it is at most {@code max} bytes; else sends it first and returns none. Call {@link #acknowledge} once the
     * completion is answered.
     */
    Unsent unsent(int max) throws InterruptedException {
        stop();
        sending.lockInterruptibly();
        try {
            long pending = log.length() - acknowledged;
            if (pending <= max) {
                return new Unsent(acknowledged, log.read(acknowledged, (int) pending));
            }
        } finally {
            sending.unlock();
        }
        drain();
        return new Unsent(acknowledged, new byte[0]);
    }

    /** The server holds the output up to {@code length}: a completion carried the rest. */
    void acknowledge(long length) {
        acknowledged = Math.max(acknowledged, length);
    }

    void stop() {
        running = false;
        if (thread != null) {
            thread.interrupt();
        }
    }

    long acknowledged() {
        return acknowledged;
    }

    private void sendPending() throws InterruptedException {
        sending.lockInterruptibly();
        try {
            while (!control.silent() && acknowledged < log.length()) {
                byte[] chunk = log.read(acknowledged, CHUNK);
                try {
                    acknowledged = Math.max(acknowledged, server.appendOutput(task, acknowledged, chunk));
                } catch (OutputOffsetException e) {
                    // the server holds less than we thought: resend from what it has
                    acknowledged = e.length();
                } catch (LeaseLostException e) {
                    control.leaseLost();
                    throw e;
                }
            }
        } finally {
            sending.unlock();
        }
    }
}
