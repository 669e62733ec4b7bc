package dev.gantry.server.status;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the status page writes figures for people, in one place so that reasons and tables agree. Stateless. */
final class Texts {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    private Texts() {
    }

    /** {@code 850 ms}, {@code 1.4s}, {@code 12s}, {@code 7m12s}, {@code 1h05m}: as exact as a person wants, no more. */
    static String duration(Duration d) {
        long millis = Math.max(0, d.toMillis());
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 10_000 && millis % 1_000 != 0) {
            // Tenths rounded up, so that a wait just over an objective of 1s never reads "1s".
            long tenths = (millis + 99) / 100;
            return tenths % 10 == 0 ? tenths / 10 + "s"
                    : String.format(Locale.ROOT, "%d.%ds", tenths / 10, tenths % 10);
        }
        long seconds = millis / 1_000;
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3_600) {
            long s = seconds % 60;
            return seconds / 60 + "m" + (s == 0 ? "" : String.format(Locale.ROOT, "%02ds", s));
        }
        long m = seconds / 60 % 60;
        return seconds / 3_600 + "h" + (m == 0 ? "" : String.format(Locale.ROOT, "%02dm", m));
    }

    /** A window's length: {@code 5 min}, {@code 60 min}, {@code 10 s}, {@code 2 h}, as the page's headings say it. */
    static String window(Duration d) {
        long seconds = d.toSeconds();
        if (seconds % 60 != 0) {
            return seconds + " s";
        }
        long minutes = seconds / 60;
        return minutes > 60 && minutes % 60 == 0 ? minutes / 60 + " h" : minutes + " min";
    }

    /** A ratio as a percentage: {@code 0 %}, {@code 0.4 %}, {@code 12.5 %}, {@code 100 %}. */
    static String percent(double ratio) {
        double percent = ratio * 100;
        String text = String.format(Locale.ROOT, percent > 0 && percent < 0.1 ? "%.2f" : "%.1f", percent);
        return (text.endsWith(".0") ? text.substring(0, text.length() - 2) : text) + " %";
    }

    /** {@code 1,203}. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 2026-12-05 21:04:05 UTC}. */
    static String time(Instant at) {
        return TIME.format(at);
    }

    /** {@code n} and the noun, singular for one: {@code 1 request}, {@code 3 requests}. */
    static String counted(long n, String noun) {
        return count(n) + " " + noun + (n == 1 ? "" : "s");
    }
}
