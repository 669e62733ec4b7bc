package dev.gantry.server.notify;

import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.RetrySchedule;
import dev.gantry.notify.email.SmtpSettings;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.webhook.WebhookChannel;
import dev.gantry.resilience.Backoff;
import dev.gantry.server.DurationSetting;
import dev.gantry.server.InvalidServerSettingException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How the server delivers notifications (docs/notifications.md). Checked when made; unset variables mean the
 * defaults.
 *
 * @param http    timeouts and the response limit of every outbound call ({@code GANTRY_NOTIFY_CONNECT_TIMEOUT},
 *                default 5s; {@code GANTRY_NOTIFY_TIMEOUT}, default 10s, the whole call)
 * @param guard   the bulkhead, retry budget and circuit breaker per destination (pool of 16 workers, 4 per
 *                destination; retries ≤ 10 % of first attempts; 5 failures open a circuit for 30 s)
 * @param retries backoff from 5 s doubling to 1 h, full jitter, for {@code GANTRY_NOTIFY_RETRY_WINDOW} (default 24h)
 * @param smtp    the SMTP server e-mail goes through ({@code GANTRY_SMTP_*}), or null: no e-mail
 */
public record NotifySettings(OutboundHttp.Settings http, DestinationGuard.Settings guard, RetrySchedule retries,
                             SmtpSettings smtp) {
    public static final String CONNECT_TIMEOUT_VARIABLE = "GANTRY_NOTIFY_CONNECT_TIMEOUT";
    public static final String TIMEOUT_VARIABLE = "GANTRY_NOTIFY_TIMEOUT";
    public static final String RETRY_WINDOW_VARIABLE = "GANTRY_NOTIFY_RETRY_WINDOW";
    public static final String SMTP_HOST_VARIABLE = "GANTRY_SMTP_HOST";
    public static final String SMTP_PORT_VARIABLE = "GANTRY_SMTP_PORT";
    public static final String SMTP_USER_VARIABLE = "GANTRY_SMTP_USER";
    public static final String SMTP_PASSWORD_VARIABLE = "GANTRY_SMTP_PASSWORD";
    public static final String SMTP_FROM_VARIABLE = "GANTRY_SMTP_FROM";
    public static final String SMTP_TLS_VARIABLE = "GANTRY_SMTP_TLS";
    public static final int DEFAULT_SMTP_PORT = 587;

    public NotifySettings {
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(retries, "retries");
    }

    public static NotifySettings defaults() {
        return new NotifySettings(OutboundHttp.Settings.defaults(WebhookChannel.USER_AGENT),
                DestinationGuard.Settings.DEFAULTS, RetrySchedule.DEFAULT, null);
    }

    /** @throws dev.gantry.server.InvalidServerSettingException naming a variable set but out of its range */
    public static NotifySettings fromEnvironment(Map<String, String> environment) {
        OutboundHttp.Settings http = new OutboundHttp.Settings(
                DurationSetting.read(environment, CONNECT_TIMEOUT_VARIABLE,
                        OutboundHttp.Settings.DEFAULT_CONNECT_TIMEOUT, Duration.ofMillis(100), Duration.ofMinutes(1),
                        "must be a duration like 5s, from 100ms to 1m"),
                DurationSetting.read(environment, TIMEOUT_VARIABLE, OutboundHttp.Settings.DEFAULT_TOTAL_TIMEOUT,
                        Duration.ofMillis(100), Duration.ofMinutes(5), "must be a duration like 10s, from 100ms to 5m"),
                OutboundHttp.Settings.DEFAULT_MAX_RESPONSE_BYTES, WebhookChannel.USER_AGENT);
        Duration window = DurationSetting.read(environment, RETRY_WINDOW_VARIABLE, RetrySchedule.DEFAULT_WINDOW,
                Duration.ofMinutes(1), Duration.ofDays(7), "must be a duration like 24h, from 1m to 7d");
        return new NotifySettings(http, DestinationGuard.Settings.DEFAULTS,
                new RetrySchedule(RetrySchedule.DEFAULT_BACKOFF, window), smtp(environment));
    }

    /** The SMTP settings, or null when {@code GANTRY_SMTP_HOST} is unset; a host without a sender fails. */
    static SmtpSettings smtp(Map<String, String> environment) {
        String host = environment.get(SMTP_HOST_VARIABLE);
        if (host == null || host.isBlank()) {
            return null;
        }
        String from = environment.get(SMTP_FROM_VARIABLE);
        if (from == null || !from.contains("@")) {
            throw invalid(SMTP_FROM_VARIABLE, from,
                    "must be the sender's address (e.g. gantry@example.com) when " + SMTP_HOST_VARIABLE + " is set");
        }
        String portText = environment.getOrDefault(SMTP_PORT_VARIABLE, String.valueOf(DEFAULT_SMTP_PORT));
        int port;
        try {
            port = Integer.parseInt(portText.strip());
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw invalid(SMTP_PORT_VARIABLE, portText, "must be a port from 1 to 65535");
        }
        String tlsText = environment.getOrDefault(SMTP_TLS_VARIABLE, "starttls");
        SmtpSettings.Tls tls = SmtpSettings.Tls.ofWord(tlsText.strip());
        if (tls == null) {
            throw invalid(SMTP_TLS_VARIABLE, tlsText, "must be starttls, tls or none");
        }
        String user = environment.get(SMTP_USER_VARIABLE);
        return new SmtpSettings(host.strip(), port, user == null || user.isBlank() ? null : user,
                environment.get(SMTP_PASSWORD_VARIABLE), from.strip(), tls);
    }

    private static InvalidServerSettingException invalid(String variable, String value, String rule) {
        return new InvalidServerSettingException(variable + " " + rule + ", got '" + value + "'");
    }

    /** These settings mailing through {@code smtp} (null: no e-mail). */
    public NotifySettings withSmtp(SmtpSettings smtp) {
        return new NotifySettings(http, guard, retries, smtp);
    }

    /** These settings retrying with {@code backoff} for {@code window}: tests use seconds. */
    public NotifySettings withRetries(Backoff backoff, Duration window) {
        return new NotifySettings(http, guard, new RetrySchedule(backoff, window), smtp);
    }

    public NotifySettings withGuard(DestinationGuard.Settings guard) {
        return new NotifySettings(http, guard, retries, smtp);
    }

    public NotifySettings withHttp(OutboundHttp.Settings http) {
        return new NotifySettings(http, guard, retries, smtp);
    }
}
