package dev.gantry.agent.protocol;

import java.util.Map;

/**
 * What a completion tells the server: the task's outcome and, so that a short task needs no calls of their own for
 * them, what the agent has not sent yet: the reports of steps that ended since the last step started, and the output
 * from {@code outputOffset} on (at most {@link #MAX_OUTPUT} bytes; more goes through output calls first).
 *
 * @param message why the agent ended the task so, or null
 * @param steps   step reports by step index, in the order to record them
 */
public record Completion(TaskOutcome outcome, String message, Map<Integer, StepReport> steps, long outputOffset,
                         byte[] output) {
    public static final int MAX_OUTPUT = 64 * 1024;

    public Completion {
        if (output.length > MAX_OUTPUT) {
            throw new IllegalArgumentException("a completion carries at most " + MAX_OUTPUT + " bytes of output");
        }
    }
}
