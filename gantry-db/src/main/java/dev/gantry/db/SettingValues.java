package dev.gantry.db;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Turns setting text into values and back, and states each rule once so that a value that does not parse and a value
 * out of range get the same message. Stateless.
 */
final class SettingValues {
    private SettingValues() {
    }

    static int integer(DatabaseSetting setting, String text, int min, int max, String rule) {
        try {
            return requireRange(setting, Integer.parseInt(text.strip()), min, max, rule);
        } catch (NumberFormatException notAnInteger) {
            throw new InvalidSettingException(setting, rule + ", got '" + text + "'");
        }
    }

    static int requireRange(DatabaseSetting setting, int value, int min, int max, String rule) {
        if (value < min || value > max) {
            throw new InvalidSettingException(setting, rule + ", got '" + value + "'");
        }
        return value;
    }

    /** Reads {@code 500ms}, {@code 5s}, {@code 2m} or an ISO-8601 duration such as {@code PT5S}. */
    static Duration duration(DatabaseSetting setting, String text, Duration min, Duration max) {
        return Durations.parse(text).filter(value -> value.compareTo(min) >= 0 && value.compareTo(max) <= 0)
                .orElseThrow(() -> new InvalidSettingException(setting, durationRule(min, max) + ", got '" + text
                        + "'"));
    }

    static Duration requireRange(DatabaseSetting setting, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidSettingException(setting, durationRule(min, max) + ", got '" + format(value) + "'");
        }
        return value;
    }

    /** Reads an absolute path; a leading {@code ~} or {@code ~/} means the user's home directory. */
    static Path home(String text, Path userHome) {
        try {
            Path path = text.equals("~") ? userHome
                    : text.startsWith("~/") ? userHome.resolve(text.substring(2))
                    : Path.of(text);
            return requireAbsolute(path, text);
        } catch (InvalidPathException notAPath) {
            throw new InvalidSettingException(DatabaseSetting.HOME, HOME_RULE + ", got '" + text + "'");
        }
    }

    static final String HOME_RULE = "must be an absolute path (or start with ~/)";

    static Path requireAbsolute(Path path, String shown) {
        if (!path.isAbsolute()) {
            throw new InvalidSettingException(DatabaseSetting.HOME, HOME_RULE + ", got '" + shown + "'");
        }
        return path.normalize();
    }

    /** The shortest of {@code 2m}, {@code 5s} or {@code 250ms} that says the duration exactly. */
    static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis != 0 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis != 0 && millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }

    private static String durationRule(Duration min, Duration max) {
        return "must be a duration like 500ms, 5s or 2m, from " + format(min) + " to " + format(max);
    }
}
