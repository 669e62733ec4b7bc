package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentException;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.OutputOffsetException;
import dev.gantry.agent.protocol.TaskRef;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the node's output to the server: every {@code interval} (200 ms by default) whatever was written since the
 * last acknowledged offset, in chunks of at most {@link #CHUNK} bytes, each carrying its offset. A send that fails
 * is simply retried from the last acknowledged offset on the next tick; the server skips bytes it already has.
 * Runs on its own virtual thread until {@link #stop}; what is left then goes with the completion. Thread-safe.
 */
final class OutputShipper {
    private static final Logger LOG = LoggerFactory.getLogger(OutputShipper.class);
    static final int CHUNK = 1 << 20;

    private final AgentServer server;
    private final TaskRef task;
    private final OutputLog log;
    private final TaskControl control;
    private final Duration interval;
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

    /**
     * Stops the background loop and waits for a send in flight to end, so that {@link #acknowledged} is final: the
     * rest of the output goes with the task's completion ({@link CompletionSpool}).
     */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.interrupt();
            thread.join();
        }
    }

    long acknowledged() {
        return acknowledged;
    }

    private void sendPending() throws InterruptedException {
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
    }
}
