package dev.gantry.server.auth;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Who made a request: a user, with a role in some organizations; a site admin (the admin token's user, {@code admin},
 * and any user made one) is an admin of every organization and of the server itself.
 */
public record Principal(UUID id, String login, String name, boolean siteAdmin, Map<String, Role> roles) {
    public Principal {
        roles = Map.copyOf(roles);
    }

    /** The caller's role in {@code organization}, if any. */
    public Optional<Role> roleIn(String organization) {
        return siteAdmin ? Optional.of(Role.ADMIN) : Optional.ofNullable(roles.get(organization));
    }
}
