package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.ServerUnavailableException;
import dev.gantry.agent.protocol.StepReport;
import dev.gantry.agent.protocol.StepStatus;
import dev.gantry.agent.protocol.TaskRef;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a task's step reports, one call each, except that a step's end waits for the next step's start or for the
 * completion, which carries the ends still waiting: a one-step task then makes one step call instead of two. The
 * wait is the time from one step's end to the next one's start, which the agent spends on no work of the job's.
 * A server that cannot take a report now does not stop the job: the reports wait (a step's latest replacing its
 * earlier one) and go with the next step's start or the completion. Used by the task's one thread.
 */
final class StepReports {
    private static final Logger LOG = LoggerFactory.getLogger(StepReports.class);

    private final AgentServer server;
    private final TaskRef task;
    private final Map<Integer, StepReport> waiting = new LinkedHashMap<>();

    StepReports(AgentServer server, TaskRef task) {
        this.server = server;
        this.task = task;
    }

    void report(int index, StepReport report) throws InterruptedException {
        waiting.put(index, report);
        if (report.status() != StepStatus.RUNNING) {
            return;
        }
        try {
            for (Iterator<Map.Entry<Integer, StepReport>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Integer, StepReport> next = it.next();
                server.reportStep(task, next.getKey(), next.getValue());
                it.remove();
            }
        } catch (ServerUnavailableException e) {
            LOG.warn("step reports of task {} wait for the server: {}", task, e.getMessage());
        }
    }

    /** The reports not sent yet, for the completion to carry (every step has ended by then); forgets them. */
    Map<Integer, StepReport> takeEnded() {
        Map<Integer, StepReport> taken = new LinkedHashMap<>(waiting);
        waiting.clear();
        return taken;
    }
}
