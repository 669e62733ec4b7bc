package dev.gantry.server.auth;

import java.util.Locale;

/** What a token lets its holder do; the kind is spelt into the token's prefix, so a token says what it is. */
public enum TokenKind {
    /** The whole API, as the operator. */
    ADMIN,
    /** The agent protocol only: claiming and reporting jobs. */
    AGENT,
    /** A user's own: what the user's roles allow. Users have many, so no file holds one. */
    USER,
    /** One registered agent's own, answered by its registration: its claims and its tasks' calls. */
    AGENT_KEY;

    /** {@code admin} or {@code agent}: the name in the database and in messages. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace("_", "");
    }

    /** {@code gnt_admin_} or {@code gnt_agent_}: what every token of this kind starts with. */
    public String prefix() {
        return "gnt_" + label() + "_";
    }

    /** {@code admin-token} or {@code agent-token}: the file under {@code $GANTRY_HOME} that holds the token. */
    public String fileName() {
        return label() + "-token";
    }
}
