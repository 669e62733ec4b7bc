package dev.gantry.server;

import dev.gantry.db.Durations;
import java.time.Duration;
import java.util.Map;

/** A duration read from an environment variable, and durations written back as settings spell them. Stateless. */
public final class DurationSetting {
    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final long HOUR = Duration.ofHours(1).toMillis();

    private DurationSetting() {
    }

    /**
     * The duration in {@code variable} ({@link Durations} reads it), or {@code fallback} when it is unset.
     *
     * @param rule what a value must be, as the error states it, e.g. "must be a duration like 5s, from 1s to 1m"
     * @throws InvalidServerSettingException naming the variable when it is set but empty, unreadable or out of
     *                                       {@code [min, max]}
     */
    public static Duration read(Map<String, String> environment, String variable, Duration fallback, Duration min,
                                Duration max, String rule) {
        String text = environment.get(variable);
        if (text == null) {
            return fallback;
        }
        if (text.isBlank()) {
            throw new InvalidServerSettingException(variable + " is set but empty; unset it to use the default "
                    + format(fallback));
        }
        Duration value = Durations.parse(text).orElse(null);
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidServerSettingException(variable + " " + rule + ", got '" + text + "'");
        }
        return value;
    }

    /** The shortest of {@code 15d}, {@code 36h}, {@code 2m}, {@code 5s} or {@code 250ms} that says it exactly. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis != 0 && millis % DAY == 0) {
            return millis / DAY + "d";
        }
        if (millis != 0 && millis % HOUR == 0) {
            return millis / HOUR + "h";
        }
        if (millis != 0 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis != 0 && millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
