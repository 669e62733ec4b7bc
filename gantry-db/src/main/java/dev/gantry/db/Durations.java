package dev.gantry.db;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How Gantry's settings and commands write a duration: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 30d},
 * or ISO-8601
 * such as {@code PT5S}. Stateless.
 */
public final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private Durations() {
    }

    /** {@code text} (surrounding blanks ignored) as a duration, or empty when it is not one. */
    public static Optional<Duration> parse(String text) {
        String stripped = text.strip();
        Matcher simple = SIMPLE.matcher(stripped);
        if (simple.matches()) {
            long amount = Long.parseLong(simple.group(1));
            return Optional.of(switch (simple.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            });
        }
        try {
            return Optional.of(Duration.parse(stripped));
        } catch (DateTimeParseException notADuration) {
            return Optional.empty();
        }
    }
}
