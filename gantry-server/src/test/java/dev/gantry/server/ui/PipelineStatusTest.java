package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PipelineStatusTest {
    @Test
    void the_worst_latest_workflow_decides_and_running_ones_come_first() {
        assertThat(PipelineStatus.of("created", List.of("success", "failed"), false)).isEqualTo("failed");
        assertThat(PipelineStatus.of("created", List.of("success", "running"), true)).isEqualTo("running");
        assertThat(PipelineStatus.of("created", List.of("failing", "running"), true)).isEqualTo("failing");
        assertThat(PipelineStatus.of("created", List.of("success", "on_hold"), true)).isEqualTo("on_hold");
        assertThat(PipelineStatus.of("created", List.of("success", "success"), false)).isEqualTo("success");
        assertThat(PipelineStatus.of("created", List.of("canceled", "success"), false)).isEqualTo("canceled");
    }

    @Test
    void a_pipeline_without_workflows_is_pending_errored_or_has_none() {
        assertThat(PipelineStatus.of("pending", List.of(), false)).isEqualTo("pending");
        assertThat(PipelineStatus.of("errored", List.of(), false)).isEqualTo("error");
        assertThat(PipelineStatus.of("created", List.of(), false)).isEqualTo("no workflows");
    }
}
