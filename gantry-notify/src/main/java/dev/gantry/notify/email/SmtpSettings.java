package dev.gantry.notify.email;

import java.util.Locale;
import java.util.Objects;

/**
 * The SMTP server e-mail goes through ({@code GANTRY_SMTP_HOST}, {@code _PORT}, {@code _USER}, {@code _PASSWORD},
 * {@code _FROM}, {@code _TLS}). {@code user} null sends without authentication. Immutable; {@code toString} masks the
 * password.
 *
 * @param tls {@code STARTTLS} upgrades a plain connection (port 587), {@code TLS} connects over TLS (port 465),
 *            {@code NONE} sends in clear (a relay on the same host, or tests)
 */
public record SmtpSettings(String host, int port, String user, String password, String from, Tls tls) {
    public enum Tls {
        STARTTLS, TLS, NONE;

        /** The value {@code word} names (any case), or null. */
        public static Tls ofWord(String word) {
            for (Tls tls : values()) {
                if (tls.name().equalsIgnoreCase(word)) {
                    return tls;
                }
            }
            return null;
        }

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public SmtpSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(tls, "tls");
        if (host.isBlank() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("SMTP needs a host and a port from 1 to 65535, got " + host + ":" + port);
        }
    }

    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", user=" + user + ", password="
                + (password == null ? null : "****") + ", from=" + from + ", tls=" + tls.word() + "]";
    }
}
