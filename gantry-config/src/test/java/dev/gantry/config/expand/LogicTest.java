package dev.gantry.config.expand;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.Limits;
import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.diag.Problems;
import dev.gantry.config.yaml.YNode;
import dev.gantry.config.yaml.YamlLoader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Conditions whose value is a list: a steps parameter is a value, a list of statements is a mistake. */
class LogicTest {
    private final Problems problems = new Problems();

    private boolean eval(String condition) {
        YNode node = new YamlLoader(Limits.DEFAULTS, problems).load("config.yml", "c: " + condition + "\n");
        return new Logic(problems).eval(((YNode.MapNode) node).get("c"), "c");
    }

    @Test
    void a_list_of_steps_is_true_when_it_has_items_as_the_docker_orb_relies_on() {
        assertThat(eval("[checkout, {run: make}]")).isTrue();
        assertThat(eval("[]")).isFalse();
        assertThat(problems.sorted()).isEmpty();
    }

    @Test
    void a_list_of_logic_statements_is_still_an_error_that_says_how_to_combine_them() {
        assertThat(eval("[{equal: [a, a]}, {not: false}]")).isFalse();
        List<Diagnostic> found = problems.sorted();
        assertThat(found).hasSize(1);
        assertThat(found.get(0).hint()).isEqualTo("combine conditions with 'and: [...]' or 'or: [...]'");
    }
}
