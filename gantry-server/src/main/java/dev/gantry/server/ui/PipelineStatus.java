package dev.gantry.server.ui;

import java.util.List;

/** A pipeline's one-word status, as the UI shows it, from its state and its workflows' latest statuses. */
final class PipelineStatus {
    private PipelineStatus() {
    }

    /**
     * @param state     the pipeline's state ({@code created}, {@code errored}, {@code pending}, …)
     * @param workflows the status of the latest run of each of its workflows
     * @param running   whether one of them has not stopped
     */
    static String of(String state, List<String> workflows, boolean running) {
        if (state.equals("errored")) {
            return "error";
        }
        if (workflows.isEmpty()) {
            return state.equals("created") ? "no workflows" : "pending";
        }
        if (workflows.contains("failing")) {
            return "failing";
        }
        if (workflows.contains("running")) {
            return "running";
        }
        if (workflows.contains("on_hold")) {
            return "on_hold";
        }
        if (running) {
            return "running";
        }
        for (String worst : List.of("error", "failed", "canceled", "not_run")) {
            if (workflows.contains(worst)) {
                return worst;
            }
        }
        return "success";
    }
}
