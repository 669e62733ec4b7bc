package dev.gantry.server.project;

import java.util.Map;

/**
 * A project's settings. {@code autoCancelBuilds}: a new pipeline on a branch cancels the running workflows of the
 * project's older pipelines on that branch. Named and nested as CircleCI's project settings API names them.
 */
record ProjectSettings(boolean autoCancelBuilds) {
    static final String ADVANCED = "advanced";
    static final String AUTOCANCEL_BUILDS = "autocancel_builds";

    static Map<String, Object> json(ProjectSettings settings) {
        return Map.of(ADVANCED, Map.of(AUTOCANCEL_BUILDS, settings.autoCancelBuilds()));
    }
}
