package dev.gantry.server.pipeline;

import java.util.Objects;

/**
 * Why a pipeline errored, as CircleCI shows it in a pipeline's {@code errors}: {@code {"type", "message"}}.
 *
 * @param type    {@link #CONFIG} (the config does not compile), {@link #CONFIG_FETCH} (it could not be had) or
 *                {@link #PLAN} (it compiled to something this server cannot run)
 * @param message for people: a compiler diagnostic as {@code file:line:column: error: …}, or what git said
 */
public record PipelineError(String type, String message) {
    public static final String CONFIG = "config";
    public static final String CONFIG_FETCH = "config-fetch";
    public static final String PLAN = "plan";

    public PipelineError {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(message, "message");
    }
}
