package dev.gantry.server.notify;

import dev.gantry.notify.DestinationGuard;
import dev.gantry.notify.RetrySchedule;
import dev.gantry.notify.http.OutboundHttp;
import dev.gantry.notify.webhook.WebhookChannel;
import dev.gantry.resilience.Backoff;
import dev.gantry.server.DurationSetting;
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
 */
public record NotifySettings(OutboundHttp.Settings http, DestinationGuard.Settings guard, RetrySchedule retries) {
    public static final String CONNECT_TIMEOUT_VARIABLE = "GANTRY_NOTIFY_CONNECT_TIMEOUT";
    public static final String TIMEOUT_VARIABLE = "GANTRY_NOTIFY_TIMEOUT";
    public static final String RETRY_WINDOW_VARIABLE = "GANTRY_NOTIFY_RETRY_WINDOW";

    public NotifySettings {
        Objects.requireNonNull(http, "http");
        Objects.requireNonNull(guard, "guard");
        Objects.requireNonNull(retries, "retries");
    }

    public static NotifySettings defaults() {
        return new NotifySettings(OutboundHttp.Settings.defaults(WebhookChannel.USER_AGENT),
                DestinationGuard.Settings.DEFAULTS, RetrySchedule.DEFAULT);
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
                new RetrySchedule(RetrySchedule.DEFAULT_BACKOFF, window));
    }

    /** These settings retrying with {@code backoff} for {@code window}: tests use seconds. */
    public NotifySettings withRetries(Backoff backoff, Duration window) {
        return new NotifySettings(http, guard, new RetrySchedule(backoff, window));
    }

    public NotifySettings withGuard(DestinationGuard.Settings guard) {
        return new NotifySettings(http, guard, retries);
    }

    public NotifySettings withHttp(OutboundHttp.Settings http) {
        return new NotifySettings(http, guard, retries);
    }
}
