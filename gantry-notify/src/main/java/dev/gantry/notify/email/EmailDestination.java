package dev.gantry.notify.email;

import dev.gantry.notify.Channel;
import java.util.List;
import java.util.UUID;

/**
 * Addresses a notification is mailed to. Its guard key is the SMTP server's host, which every e-mail destination
 * shares: one mail server down holds back e-mail, not the other kinds. Immutable.
 */
public record EmailDestination(UUID id, String name, List<String> recipients, String host)
        implements Channel.Destination {
    public EmailDestination {
        recipients = List.copyOf(recipients);
    }
}
