package dev.gantry.server.auth;

import java.util.Locale;
import java.util.Optional;

/** A user's role in an organization, each allowing what the one before it does and more. */
public enum Role {
    /** Reads the organization's projects, pipelines, jobs, output and settings; changes nothing. */
    VIEWER,
    /** Also triggers, reruns, approves and cancels in the organization's projects. */
    MEMBER,
    /** Also manages the organization's projects, secrets, contexts, schedules, members and its audit log. */
    ADMIN;

    /** True when this role allows what {@code least} allows. */
    public boolean atLeast(Role least) {
        return compareTo(least) >= 0;
    }

    /** {@code viewer}, {@code member} or {@code admin}, as the API and the database write it. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Role> ofWord(String word) {
        for (Role role : values()) {
            if (role.word().equals(word)) {
                return Optional.of(role);
            }
        }
        return Optional.empty();
    }
}
