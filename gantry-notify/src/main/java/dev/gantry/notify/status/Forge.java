package dev.gantry.notify.status;

import java.util.Locale;

/** The forges Gantry posts commit statuses to, each with its API's path prefix on a self-hosted server. */
public enum Forge {
    GITHUB("/api/v3"), GITLAB("/api/v4"), GITEA("/api/v1");

    private final String apiPrefix;

    Forge(String apiPrefix) {
        this.apiPrefix = apiPrefix;
    }

    /** Where the API lives on a self-hosted server, under its web root. */
    public String apiPrefix() {
        return apiPrefix;
    }

    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The forge {@code word} names, or null. */
    public static Forge ofWord(String word) {
        for (Forge forge : values()) {
            if (forge.word().equals(word)) {
                return forge;
            }
        }
        return null;
    }
}
