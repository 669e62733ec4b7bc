package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class WorkflowGraphTest {
    @Test
    void a_jobs_column_is_its_longest_chain_of_requirements_and_edges_point_right() {
        WorkflowGraph graph = WorkflowGraph.of(List.of(job("build"), job("unit", "build"),
                job("integration", "build"), job("package", "unit", "integration"), job("lint")));
        Map<String, WorkflowGraph.Node> nodes = graph.nodes().stream()
                .collect(Collectors.toMap(n -> n.job().name(), Function.identity()));

        int column = WorkflowGraph.NODE_WIDTH + WorkflowGraph.COLUMN_GAP;
        assertThat(nodes.get("build").x()).isEqualTo(nodes.get("lint").x());
        assertThat(nodes.get("unit").x() - nodes.get("build").x()).isEqualTo(column);
        assertThat(nodes.get("integration").x()).isEqualTo(nodes.get("unit").x());
        assertThat(nodes.get("package").x() - nodes.get("unit").x()).isEqualTo(column);
        assertThat(nodes.get("integration").y()).isGreaterThan(nodes.get("unit").y());
        assertThat(graph.edges()).hasSize(4);
        assertThat(graph.width()).isEqualTo(3 * column - WorkflowGraph.COLUMN_GAP + 2 * WorkflowGraph.MARGIN);
    }

    @Test
    void a_requirement_that_is_not_in_the_workflow_or_a_cycle_does_not_break_the_layout() {
        WorkflowGraph graph = WorkflowGraph.of(List.of(job("a", "b"), job("b", "a"), job("c", "gone")));

        assertThat(graph.nodes()).hasSize(3);
        assertThat(graph.nodes()).allMatch(n -> n.x() >= 0 && n.y() >= 0);
    }

    @Test
    void a_long_name_is_cut_to_fit_its_box() {
        WorkflowGraph.Node node = WorkflowGraph.of(List.of(job("a-very-long-job-name-that-goes-on"))).nodes().get(0);

        assertThat(node.label()).hasSize(22).endsWith("…");
    }

    private static UiReads.JobNode job(String name, String... requires) {
        return new UiReads.JobNode(UUID.randomUUID(), 1, name, "build", "success", List.of(requires), null, null);
    }
}
