package dev.gantry.server.ui;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** How the templates write times, durations and statuses. Pure. */
public final class Format {
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private Format() {
    }

    /** {@code 2026-12-05 21:40:03 UTC}; empty for null. */
    public static String time(Instant at) {
        return at == null ? "" : UTC.format(at);
    }

    /** The instant as ISO-8601, for a {@code <time datetime>} attribute; empty for null. */
    public static String iso(Instant at) {
        return at == null ? "" : at.toString();
    }

    /** {@code 1h 02m}, {@code 3m 07s}, {@code 12s}, {@code 0.4s}; empty for null. */
    public static String duration(Long millis) {
        if (millis == null) {
            return "";
        }
        Duration d = Duration.ofMillis(Math.max(0, millis));
        if (d.toHours() > 0) {
            return "%dh %02dm".formatted(d.toHours(), d.toMinutesPart());
        }
        if (d.toMinutes() > 0) {
            return "%dm %02ds".formatted(d.toMinutes(), d.toSecondsPart());
        }
        if (d.toSeconds() >= 10) {
            return d.toSeconds() + "s";
        }
        return "%.1fs".formatted(millis / 1000.0);
    }

    /** From {@code from} to {@code to}, or to {@code now} while it runs; empty when it has not started. */
    public static String between(Instant from, Instant to, Instant now) {
        if (from == null) {
            return "";
        }
        return duration((to == null ? now : to).toEpochMilli() - from.toEpochMilli());
    }

    /** {@code 512 B}, {@code 1.5 KiB}, {@code 12.0 MiB}, {@code 3.1 GiB}. */
    public static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return "%.1f %s".formatted(value, units[unit]);
    }

    /** {@code 40%}, {@code 66.7%}; empty for null. */
    public static String percent(Double value) {
        if (value == null) {
            return "";
        }
        return value == Math.rint(value) ? "%.0f%%".formatted(value) : "%.1f%%".formatted(value);
    }

    /** A test's run time in seconds as {@link #duration} writes it. */
    public static String seconds(double seconds) {
        return duration(Math.round(seconds * 1000));
    }

    /** {@code on_hold} → {@code on hold}, {@code infrastructure_fail} → {@code infrastructure fail}. */
    public static String status(String status) {
        return status == null ? "" : status.replace('_', ' ');
    }
}
