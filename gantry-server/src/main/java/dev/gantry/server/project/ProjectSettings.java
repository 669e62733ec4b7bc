package dev.gantry.server.project;

import java.util.Map;

/**
 * A project's settings. {@code autoCancelBuilds}: a new pipeline on a branch cancels the running workflows of the
 * project's older pipelines on that branch; named and nested as CircleCI's project settings API names it.
 * {@code webhookSecretSet}: whether webhooks from a forge can trigger the project (the secret itself is never shown).
 */
record ProjectSettings(boolean autoCancelBuilds, boolean webhookSecretSet) {
    static final String ADVANCED = "advanced";
    static final String AUTOCANCEL_BUILDS = "autocancel_builds";
    static final String WEBHOOK = "webhook";
    static final String SECRET = "secret";
    static final String SECRET_SET = "secret_set";
    static final int SECRET_MIN = 16;
    static final int SECRET_MAX = 255;

    static Map<String, Object> json(ProjectSettings settings) {
        return Map.of(ADVANCED, Map.of(AUTOCANCEL_BUILDS, settings.autoCancelBuilds()),
                WEBHOOK, Map.of(SECRET_SET, settings.webhookSecretSet()));
    }
}
