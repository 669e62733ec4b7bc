package dev.gantry.server.pipeline;

import java.util.Arrays;

/**
 * A pipeline's state, with CircleCI's words. A trigger makes it {@link #CREATED}; the plan builder moves it on. The
 * database accepts all of CircleCI's pipeline states ({@code created}, {@code errored}, {@code setup-pending},
 * {@code setup}, {@code pending}); a state joins this enum when code sets it.
 */
public enum PipelineState {
    CREATED("created");

    private final String label;

    PipelineState(String label) {
        this.label = label;
    }

    /** The word in the API and in the database. */
    public String label() {
        return label;
    }

    static PipelineState ofLabel(String label) {
        return Arrays.stream(values()).filter(state -> state.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown pipeline state '" + label + "'"));
    }
}
