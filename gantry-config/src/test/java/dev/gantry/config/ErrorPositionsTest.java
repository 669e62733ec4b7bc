package dev.gantry.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.config.diag.Diagnostic;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One test per kind of error: the diagnostic's line, column and path are exact. */
class ErrorPositionsTest {
    private final ConfigCompiler compiler = ConfigCompiler.create();

    private Diagnostic onlyError(String config) {
        CompileResult result = compiler.compile("config.yml", config, PipelineContext.defaults());
        assertThat(result.ok()).as("compile fails").isFalse();
        assertThat(result.errors()).as("exactly one error").hasSize(1);
        return result.errors().get(0);
    }

    private static void at(Diagnostic d, int line, int column, String path) {
        assertThat(d.file()).isEqualTo("config.yml");
        assertThat(List.of(d.line(), d.column(), d.path())).as(d.format()).isEqualTo(List.of(line, column, path));
    }

    private static String job(String body) {
        return "version: 2.1\njobs:\n  build:\n    docker: [{image: alpine}]\n" + body
                + "workflows:\n  w:\n    jobs: [build]\n";
    }

    @Test
    void yaml_syntax_error_points_at_the_bad_token() {
        at(onlyError("version: 2.1\njobs:\n  build: [a\n  b: c\n"), 4, 4, "");
    }

    @Test
    void a_version_2_config_using_commands_or_executors_is_told_they_need_2_1() {
        // Their definitions are read despite the error, and using them must not break the compiler.
        assertNeeds21("commands", """
                version: 2
                commands:
                  greet: {parameters: {to: {type: string, default: world}}, steps: [{run: echo << parameters.to >>}]}
                jobs:
                  hello: {docker: [{image: alpine}], steps: [greet, {greet: {to: team}}]}
                workflows:
                  w: {jobs: [hello]}
                """);
        assertNeeds21("executors", """
                version: 2
                executors:
                  small:
                    parameters: {tag: {type: string, default: "3"}}
                    docker: [{image: "alpine:<< parameters.tag >>"}]
                jobs:
                  hello: {executor: {name: small, tag: "3.20"}, steps: [checkout]}
                workflows:
                  w: {jobs: [hello]}
                """);
    }

    private void assertNeeds21(String key, String config) {
        Diagnostic d = onlyError(config);
        at(d, 2, 1, key);
        assertThat(d.message()).isEqualTo("'" + key + "' needs version 2.1");
    }

    @Test
    void unknown_job_key_points_at_the_key_with_a_suggestion() {
        Diagnostic d = onlyError(job("    paralelism: 2\n    steps: [checkout]\n"));
        at(d, 5, 5, "jobs.build.paralelism");
        assertThat(d.hint()).isEqualTo("did you mean 'parallelism'?");
    }

    @Test
    void unknown_step_points_at_the_step() {
        Diagnostic d = onlyError(job("    steps:\n      - checkout\n      - chekout\n"));
        at(d, 7, 9, "jobs.build.steps[1]");
        assertThat(d.hint()).isEqualTo("did you mean 'checkout'?");
    }

    @Test
    void unknown_required_job_points_at_the_requirement() {
        Diagnostic d = onlyError("""
                version: 2.1
                jobs:
                  build: {docker: [{image: a}], steps: [checkout]}
                  test: {docker: [{image: a}], steps: [checkout]}
                workflows:
                  w:
                    jobs:
                      - build
                      - test:
                          requires:
                            - biuld
                """);
        at(d, 11, 15, "workflows.w.jobs[1].test.requires[0]");
        assertThat(d.hint()).isEqualTo("did you mean 'build'?");
    }

    @Test
    void requires_cycle_points_at_the_first_job_of_the_cycle() {
        Diagnostic d = onlyError("""
                version: 2.1
                jobs:
                  j: {docker: [{image: a}], steps: [checkout]}
                workflows:
                  w:
                    jobs:
                      - j: {name: a, requires: [b]}
                      - j: {name: b, requires: [a]}
                """);
        at(d, 7, 9, "workflows.w.jobs[0].j.requires");
        assertThat(d.message()).endsWith("a -> b -> a");
    }

    @Test
    void missing_parameter_points_at_the_invocation_and_hints_the_declaration() {
        Diagnostic d = onlyError("""
                version: 2.1
                commands:
                  ship:
                    parameters:
                      env: {type: string}
                    steps: [{run: echo}]
                jobs:
                  build:
                    docker: [{image: a}]
                    steps:
                      - ship
                workflows:
                  w:
                    jobs: [build]
                """);
        at(d, 11, 9, "jobs.build.steps[0].ship");
        assertThat(d.hint()).isEqualTo("declared at config.yml:5:7");
    }

    @Test
    void wrong_parameter_type_points_at_the_value() {
        Diagnostic d = onlyError("""
                version: 2.1
                jobs:
                  build:
                    parameters:
                      n: {type: integer}
                    docker: [{image: a}]
                    steps: [checkout]
                workflows:
                  w:
                    jobs:
                      - build: {n: lots}
                """);
        at(d, 11, 20, "workflows.w.jobs[0].build.n");
    }

    @Test
    void unknown_parameter_reference_points_at_the_scalar() {
        Diagnostic d = onlyError(job("    parameters:\n      target: {type: string, default: x}\n    steps:\n"
                + "      - run: make << parameters.taget >>\n"));
        at(d, 8, 14, "jobs.build.steps[0].run");
        assertThat(d.hint()).isEqualTo("did you mean 'target'?");
    }

    @Test
    void unknown_executor_points_at_the_reference() {
        Diagnostic d = onlyError("""
                version: 2.1
                executors:
                  node: {docker: [{image: a}]}
                jobs:
                  build:
                    executor: nod
                    steps: [checkout]
                workflows:
                  w:
                    jobs: [build]
                """);
        at(d, 6, 15, "jobs.build.executor");
    }

    @Test
    void missing_orb_points_at_the_reference() {
        Diagnostic d = onlyError("version: 2.1\norbs:\n  node: circleci/node@5.1.0\n"
                + job("    steps: [checkout]\n").substring("version: 2.1\n".length()));
        at(d, 3, 9, "orbs.node");
    }

    @Test
    void duplicate_job_name_points_at_the_second_entry() {
        Diagnostic d = onlyError("version: 2.1\njobs:\n  build: {docker: [{image: a}], steps: [checkout]}\n"
                + "workflows:\n  w:\n    jobs:\n      - build\n      - build\n");
        at(d, 8, 9, "workflows.w.jobs[1].build");
    }

    @Test
    void matrix_explosion_points_at_the_matrix() {
        Diagnostic d = onlyError("""
                version: 2.1
                jobs:
                  t:
                    parameters: {a: {type: integer}, b: {type: integer}}
                    docker: [{image: a}]
                    steps: [checkout]
                workflows:
                  w:
                    jobs:
                      - t:
                          matrix:
                            parameters:
                              a: [%s]
                              b: [%s]
                """.formatted(numbers(50), numbers(50)));
        at(d, 12, 13, "workflows.w.jobs[0].t.matrix");
    }

    @Test
    void command_recursion_points_at_the_repeating_invocation() {
        Diagnostic d = onlyError("""
                version: 2.1
                commands:
                  a: {steps: [b]}
                  b: {steps: [a]}
                jobs:
                  build: {docker: [{image: x}], steps: [a]}
                workflows:
                  w: {jobs: [build]}
                """);
        at(d, 4, 15, "commands.b.steps[0]");
    }

    @Test
    void bad_logic_statement_points_at_the_operator() {
        Diagnostic d = onlyError(job("    steps:\n      - when:\n          condition: {eqaul: [a, b]}\n"
                + "          steps: [checkout]\n"));
        at(d, 7, 23, "jobs.build.steps[0].when.condition.eqaul");
    }

    @Test
    void bad_filter_regex_points_at_the_pattern() {
        Diagnostic d = onlyError("version: 2.1\njobs:\n  build: {docker: [{image: a}], steps: [checkout]}\n"
                + "workflows:\n  w:\n    jobs:\n      - build:\n          filters: {branches: {only: \"/[/\"}}\n");
        at(d, 8, 38, "workflows.w.jobs[0].build.filters.branches.only");
    }

    @Test
    void alias_bomb_is_reported_at_the_start_of_the_file() {
        StringBuilder yaml = new StringBuilder("version: 2.1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 9; i++) {
            yaml.append("a").append(i).append(": &a").append(i).append(" [")
                    .append(("*a" + (i - 1) + ", ").repeat(9)).append("*a").append(i - 1).append("]\n");
        }
        at(onlyError(yaml.toString()), 1, 1, "");
    }

    @Test
    void a_file_over_the_size_limit_is_reported_at_its_start() {
        Limits small = new Limits(1_000, Limits.DEFAULT_MAX_NODES, Limits.DEFAULT_MAX_DEPTH, Limits.DEFAULT_MAX_JOBS,
                Limits.DEFAULT_MAX_EXPANSION_DEPTH, Limits.DEFAULT_MAX_EXPANDED_NODES);
        CompileResult result = ConfigCompiler.create(dev.gantry.config.orb.OrbResolver.NONE, small)
                .compile("config.yml", job("    steps: [checkout]\n") + "#".repeat(1_000), PipelineContext.defaults());
        assertThat(result.errors()).hasSize(1);
        at(result.errors().get(0), 1, 1, "");
    }

    @Test
    void nesting_past_the_depth_limit_is_reported_where_it_happens() {
        Diagnostic d = onlyError("version: 2.1\njobs:\n  build:\n    steps: " + "[".repeat(100) + "]".repeat(100) + "\n");
        assertThat(d.line()).isEqualTo(4);
        assertThat(d.path()).isEmpty();
    }

    @Test
    void missing_version_is_reported_on_the_root() {
        at(onlyError("jobs:\n  build: {docker: [{image: a}], steps: [checkout]}\n"), 1, 1, "version");
    }

    private static String numbers(int n) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            out.append(i == 0 ? "" : ", ").append(i);
        }
        return out.toString();
    }
}
