package dev.gantry.agent.task;

import java.time.Duration;

/** Durations as a person reads them in the output: {@code 10m}, {@code 1h30m}, {@code 1s}, {@code 250ms}. */
final class Durations {
    private Durations() {
    }

    static String words(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        StringBuilder out = new StringBuilder();
        append(out, d.toHours(), "h");
        append(out, d.toMinutesPart(), "m");
        append(out, d.toSecondsPart(), "s");
        append(out, d.toMillisPart(), "ms");
        return out.toString();
    }

    private static void append(StringBuilder out, long amount, String unit) {
        if (amount != 0) {
            out.append(amount).append(unit);
        }
    }
}
