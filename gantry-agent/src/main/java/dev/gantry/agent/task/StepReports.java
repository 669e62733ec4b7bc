package dev.gantry.agent.task;

import dev.gantry.agent.protocol.AgentServer;
import dev.gantry.agent.protocol.StepReport;
import dev.gantry.agent.protocol.StepStatus;
import dev.gantry.agent.protocol.TaskRef;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sends a task's step reports, one call each, except that a step's end waits for the next step's start or for the
 * completion, which carries the ends still waiting: a one-step task then makes one step call instead of two. The
 * wait is the time from one step's end to the next one's start, which the agent spends on no work of the job's.
 * Used by the task's one thread.
 */
final class StepReports {
    private final AgentServer server;
    private final TaskRef task;
    private final Map<Integer, StepReport> ended = new LinkedHashMap<>();

    StepReports(AgentServer server, TaskRef task) {
        this.server = server;
        this.task = task;
    }

    void report(int index, StepReport report) throws InterruptedException {
        if (report.status() != StepStatus.RUNNING) {
            ended.put(index, report);
            return;
        }
        for (Map.Entry<Integer, StepReport> end : ended.entrySet()) {
            server.reportStep(task, end.getKey(), end.getValue());
        }
        ended.clear();
        server.reportStep(task, index, report);
    }

    /** The ends not sent yet, for the completion to carry; forgets them. */
    Map<Integer, StepReport> takeEnded() {
        Map<Integer, StepReport> taken = new LinkedHashMap<>(ended);
        ended.clear();
        return taken;
    }
}
