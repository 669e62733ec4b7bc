package dev.gantry.notify.webhook;

import dev.gantry.notify.Channel;
import java.net.URI;
import java.util.UUID;

/**
 * One project webhook as the channel needs it: where to post, whether to check the endpoint's certificate, and the
 * secret that signs each body (opened from where it is sealed only for the send). Immutable; its {@code toString}
 * leaves the secret out.
 */
public record Webhook(UUID id, String name, URI url, boolean verifyTls, String signingSecret)
        implements Channel.Destination {

    @Override
    public String host() {
        return url.getHost() == null ? "" : url.getHost();
    }

    @Override
    public String toString() {
        return "Webhook[id=" + id + ", name=" + name + ", url=" + url + ", verifyTls=" + verifyTls + "]";
    }
}
