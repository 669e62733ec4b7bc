package dev.gantry.config.diag;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.yaml.Pos;
import org.junit.jupiter.api.Test;

class ProblemsTest {

    @Test
    void dropped_warnings_are_noted_as_a_warning_so_the_compile_still_succeeds() {
        Problems problems = new Problems();
        for (int i = 1; i <= Problems.MAX + 3; i++) {
            problems.warning(new Pos("config.yml", i, 1), "", "unknown key", null);
        }

        assertThat(problems.hasErrors()).isFalse();
        assertThat(problems.sorted()).hasSize(Problems.MAX + 1).last()
                .satisfies(d -> {
                    assertThat(d.severity()).isEqualTo(Diagnostic.Severity.WARNING);
                    assertThat(d.message()).isEqualTo("3 more problems not shown");
                });
    }

    @Test
    void a_dropped_error_makes_the_note_an_error() {
        Problems problems = new Problems();
        for (int i = 1; i <= Problems.MAX; i++) {
            problems.warning(new Pos("config.yml", i, 1), "", "unknown key", null);
        }
        problems.error(new Pos("config.yml", 999, 1), "", "jobs must be a map");

        assertThat(problems.hasErrors()).isTrue();
        assertThat(problems.sorted()).last().extracting(Diagnostic::severity).isEqualTo(Diagnostic.Severity.ERROR);
    }
}
