package dev.gantry.server.pipeline;

import java.util.Arrays;

/**
 * A pipeline's state, with CircleCI's words. A trigger makes it {@link #PENDING}; the plan builder makes it
 * {@link #CREATED} once its workflows are stored, {@link #SETUP} when that is a setup config's workflow (then the
 * continuation makes it {@link #CREATED}), or {@link #ERRORED} when its config cannot be had or compiled. The database
 * accepts all of CircleCI's pipeline states (also {@code setup-pending}); a state joins this enum when code sets it.
 */
public enum PipelineState {
    PENDING("pending"), SETUP("setup"), CREATED("created"), ERRORED("errored");

    private final String label;

    PipelineState(String label) {
        this.label = label;
    }

    /** The word in the API and in the database. */
    public String label() {
        return label;
    }

    public static PipelineState ofLabel(String label) {
        return Arrays.stream(values()).filter(state -> state.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown pipeline state '" + label + "'"));
    }
}
