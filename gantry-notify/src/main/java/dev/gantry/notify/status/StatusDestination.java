package dev.gantry.notify.status;

import dev.gantry.notify.Channel;
import java.util.UUID;

/**
 * A project's repository on its forge with the token that may post statuses to it (opened from where it is sealed
 * only for the send). Immutable; {@code toString} leaves the token out.
 */
public record StatusDestination(UUID id, ForgeRepository repository, String token) implements Channel.Destination {

    @Override
    public String host() {
        return repository.api().getHost() == null ? "" : repository.api().getHost();
    }

    @Override
    public String toString() {
        return "StatusDestination[id=" + id + ", repository=" + repository + "]";
    }
}
