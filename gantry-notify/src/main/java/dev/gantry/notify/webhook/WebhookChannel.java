package dev.gantry.notify.webhook;

import dev.gantry.notify.Attempt;
import dev.gantry.notify.Channel;
import dev.gantry.notify.Event;
import dev.gantry.notify.http.OutboundHttp;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Project webhooks as CircleCI sends them: a JSON POST ({@link WebhookPayload}) with the headers
 * {@code circleci-event-type}, {@code circleci-signature} ({@link WebhookSignature}), {@code gantry-delivery-id} and
 * a {@code User-Agent} of {@value #USER_AGENT}. Any 2xx is delivered; everything else, a timeout or a reset included,
 * is a failure to retry; an endpoint the address rule refuses is a failure no retry cures. Thread-safe.
 */
public final class WebhookChannel implements Channel<Webhook> {
    public static final String KIND = "webhook";
    public static final String USER_AGENT = "Gantry-Webhook/1.0";
    public static final String EVENT_TYPE_HEADER = "circleci-event-type";
    public static final String DELIVERY_HEADER = "gantry-delivery-id";

    private final OutboundHttp http;
    private final InstantSource clock;

    public WebhookChannel(OutboundHttp http, InstantSource clock) {
        this.http = http;
        this.clock = clock;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public Attempt send(Webhook webhook, Event event, UUID deliveryId) {
        byte[] body = WebhookPayload.render(event, webhook, deliveryId);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("User-Agent", USER_AGENT);
        headers.put(EVENT_TYPE_HEADER, event.type().word());
        headers.put(WebhookSignature.HEADER, WebhookSignature.sign(webhook.signingSecret(), body));
        headers.put(DELIVERY_HEADER, deliveryId.toString());
        return http.attempt(new OutboundHttp.Post(webhook.url(), body, headers, webhook.verifyTls()), clock);
    }
}
