package dev.gantry.config.yaml;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.Limits;
import dev.gantry.config.diag.Diagnostic;
import dev.gantry.config.diag.Problems;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Syntax errors: where the parser noticed the problem, and where the construct it was reading began. */
class YamlLoaderTest {

    private static Diagnostic onlyProblem(String text) {
        Problems problems = new Problems();
        assertThat(new YamlLoader(Limits.DEFAULTS, problems).load("config.yml", text)).isNull();
        List<Diagnostic> found = problems.sorted();
        assertThat(found).hasSize(1);
        return found.get(0);
    }

    @Test
    void an_unclosed_flow_sequence_is_reported_where_noticed_and_names_where_it_began() {
        Diagnostic d = onlyProblem("version: 2.1\njobs:\n  build:\n    docker: [{image: alpine}\n    steps:\n");
        assertThat(List.of(d.line(), d.column())).isEqualTo(List.of(5, 5));
        assertThat(d.message()).isEqualTo("invalid YAML: while parsing a flow sequence, expected ',' or ']', "
                + "but got <scalar> (the flow sequence began at 4:13)");
    }

    @Test
    void a_badly_indented_key_names_the_mapping_it_broke() {
        Diagnostic d = onlyProblem("version: 2.1\njobs:\n  build:\n    docker: []\n   steps: []\n");
        assertThat(List.of(d.line(), d.column())).isEqualTo(List.of(5, 4));
        assertThat(d.message()).endsWith("(the block mapping began at 3:3)");
    }

    @Test
    void an_unclosed_quote_names_the_line_it_opened_on() {
        Diagnostic d = onlyProblem("version: 2.1\nx: \"open\ny: 1\n");
        assertThat(d.message()).contains("quoted scalar").endsWith("(the quoted scalar began at 2:4)");
        assertThat(d.line()).isEqualTo(4);
    }
}
