package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentException;
import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.LeaseLostException;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.TaskRef;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews a task's lease every heartbeat interval on its own virtual thread and turns the answers into
 * {@link TaskControl} signals: {@code cancel: true} cancels, 409 loses the lease. A server that cannot be reached
 * does not stop the task: heartbeats go on being tried.
 */
final class Heartbeats {
    private static final Logger LOG = LoggerFactory.getLogger(Heartbeats.class);

    private final AgentServer server;
    private final TaskRef task;
    private final TaskControl control;
    private final Duration interval;
    private Thread thread;

    Heartbeats(AgentServer server, TaskRef task, TaskControl control, Duration interval) {
        this.server = server;
        this.task = task;
        this.control = control;
        this.interval = interval;
    }

    void start() {
        thread = Thread.ofVirtual().name("heartbeat-" + task).start(this::loop);
    }

    void stop() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    private void loop() {
        // The first heartbeat waits an interval too: the task's first call (the first step's report, or the
        // completion) already tells the server that this agent got the task and runs it.
        while (!control.silent()) {
            try {
                Thread.sleep(interval);
                if (server.heartbeat(task)) {
                    LOG.info("task {} was canceled", task);
                    control.cancel();
                }
            } catch (InterruptedException e) {
                return;
            } catch (LeaseLostException e) {
                LOG.warn("stopping task {}: {}", task, e.getMessage());
                control.leaseLost();
            } catch (ServerUnavailableException e) {
                // The server or its database is away: the task goes on, the server renews leases once it is back,
                // and a result that comes late still counts unless another attempt started meanwhile.
                LOG.warn("task {} goes on while its lease cannot be renewed: {}", task, e.getMessage());
            } catch (AgentException e) {
                LOG.warn("heartbeat of task {} failed: {}", task, e.getMessage());
            }
        }
    }
}
