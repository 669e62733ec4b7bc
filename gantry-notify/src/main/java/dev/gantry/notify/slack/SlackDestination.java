package dev.gantry.notify.slack;

import dev.gantry.notify.Channel;
import java.net.URI;
import java.util.UUID;

/**
 * A Slack incoming webhook: its URL is its credential (anyone holding it may post to the channel), so it is opened
 * from where it is sealed only for the send, and {@code toString} shows its host alone. Immutable.
 */
public record SlackDestination(UUID id, String name, URI url) implements Channel.Destination {

    @Override
    public String host() {
        return url.getHost() == null ? "" : url.getHost();
    }

    @Override
    public String toString() {
        return "SlackDestination[id=" + id + ", name=" + name + ", host=" + host() + "]";
    }
}
