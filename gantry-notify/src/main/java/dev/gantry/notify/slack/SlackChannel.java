package dev.gantry.notify.slack;

import dev.gantry.notify.Attempt;
import dev.gantry.notify.Channel;
import dev.gantry.notify.Event;
import dev.gantry.notify.http.OutboundHttp;
import java.time.InstantSource;
import java.util.Map;
import java.util.UUID;

/**
 * Slack incoming webhooks: a JSON POST of a {@link SlackMessage}. Slack answers 200 {@code ok}; anything else, a
 * timeout or a reset is a failure to retry; a URL the address rule refuses is one no retry cures. Thread-safe.
 */
public final class SlackChannel implements Channel<SlackDestination> {
    public static final String KIND = "slack";

    private final OutboundHttp http;
    private final InstantSource clock;

    public SlackChannel(OutboundHttp http, InstantSource clock) {
        this.http = http;
        this.clock = clock;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public Attempt send(SlackDestination slack, Event event, UUID deliveryId) {
        return http.attempt(new OutboundHttp.Post(slack.url(), SlackMessage.render(event),
                Map.of("Content-Type", "application/json; charset=utf-8"), true), clock);
    }
}
