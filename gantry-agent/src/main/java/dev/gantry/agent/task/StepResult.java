package dev.gantry.agent.task;

import dev.gantry.agent.protocol.StepStatus;

/** How one step ended: success, failed or canceled, and the exit code of its process if it had one. */
record StepResult(StepStatus status, Integer exitCode) {
    static final StepResult SUCCESS = new StepResult(StepStatus.SUCCESS, null);
    static final StepResult FAILED = new StepResult(StepStatus.FAILED, null);
    static final StepResult CANCELED = new StepResult(StepStatus.CANCELED, null);

    static StepResult exited(int code) {
        return new StepResult(code == 0 ? StepStatus.SUCCESS : StepStatus.FAILED, code);
    }

    boolean succeeded() {
        return status == StepStatus.SUCCESS;
    }
}
