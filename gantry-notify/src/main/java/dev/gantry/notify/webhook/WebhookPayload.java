package dev.gantry.notify.webhook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.notify.Event;
import java.util.UUID;

/**
 * The body of a webhook delivery in CircleCI's shape: {@code id} (the delivery's, for the receiver to drop
 * duplicates), {@code type}, {@code happened_at}, {@code webhook {id, name}}, then the event's snapshot:
 * {@code project}, {@code organization}, {@code workflow}, {@code pipeline}, and {@code job} for
 * {@code job-completed}. Stateless.
 */
public final class WebhookPayload {
    private WebhookPayload() {
    }

    /** The JSON body of delivery {@code deliveryId} of {@code event} to {@code webhook}. */
    public static byte[] render(Event event, Webhook webhook, UUID deliveryId) {
        ObjectNode body = Event.JSON.createObjectNode();
        body.put("id", deliveryId.toString());
        body.put("type", event.type().word());
        body.put("happened_at", event.happenedAt());
        ObjectNode hook = body.putObject("webhook");
        hook.put("id", webhook.id().toString());
        hook.put("name", webhook.name());
        body.setAll((ObjectNode) Event.JSON.valueToTree(event.snapshot()));
        try {
            return Event.JSON.writeValueAsBytes(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a webhook payload did not serialise", e);
        }
    }
}
