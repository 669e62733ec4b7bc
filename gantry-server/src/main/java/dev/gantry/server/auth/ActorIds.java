package dev.gantry.server.auth;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The ids CircleCI's API shows for people ({@code GET /me}'s {@code id}, a workflow's {@code started_by} and
 * {@code canceled_by}, a job's {@code approved_by}): Gantry has no user table, so an actor's id is derived from its
 * login, the same on every server and across token rotations. {@code admin} (the admin token) is one such login; a
 * forge user who pushed is another (their forge login), and {@code system} the scheduler's.
 */
public final class ActorIds {
    private ActorIds() {
    }

    /** The id of the actor {@code login}: a name-based (version 3) UUID of {@code "gantry-actor:" + login}. */
    public static UUID of(String login) {
        return UUID.nameUUIDFromBytes(("gantry-actor:" + login).getBytes(StandardCharsets.UTF_8));
    }
}
