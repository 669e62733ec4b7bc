package dev.gantry.config;

import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

/**
 * Hand-made hostile configs that random mutation of the golden configs rarely reaches, each sized past what a compiler
 * linear in its input handles in well under a second: a reference that nearly matches a huge job name (the "did you
 * mean" suggestion), a run command that is a flood of {@code <<} openers or of unclosed {@code <<# parameters.x >>}
 * sections, and a large aliased subtree in a job expanded by big matrices.
 * Each must compile within 10 s, to a plan or to errors, with no exception escaping; the checks are
 * those of {@link MutationProperties#check}. Shrinking is off: the failures depend on size, and every failing attempt
 * costs a 10 s timeout.
 */
class HostileConfigProperties {

    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void a_near_miss_of_a_huge_job_name_is_reported_in_bounded_time(@ForAll @IntRange(min = 60_000, max = 100_000) int n) {
        String name = "a".repeat(n);
        MutationProperties.check("version: 2.1\njobs:\n  ? " + name + "\n  : {docker: [{image: a}], steps: [checkout]}\n"
                + "workflows:\n  w:\n    jobs: [" + name + "b]\n");
    }

    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void a_flood_of_template_openers_compiles_in_bounded_time(@ForAll @IntRange(min = 300_000, max = 500_000) int n) {
        MutationProperties.check("version: 2.1\njobs:\n  build: {docker: [{image: a}], steps: [{run: \""
                + "<<".repeat(n) + ">>\"}]}\nworkflows:\n  w:\n    jobs: [build]\n");
    }

    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void unclosed_template_sections_compile_in_bounded_time(@ForAll @IntRange(min = 30_000, max = 40_000) int n) {
        MutationProperties.check("version: 2.1\njobs:\n  build:\n    parameters: {x: {type: boolean, default: true}}\n"
                + "    docker: [{image: a}]\n    steps: [{run: \"" + "<<# parameters.x >>".repeat(n) + "\"}]\n"
                + "workflows:\n  w:\n    jobs: [build]\n");
    }

    /** A 666,666-node subtree (six aliases of a 10^5-leaf anchor) in a job with a matrix in each of the workflows. */
    @Property(tries = 3, shrinking = ShrinkingMode.OFF)
    void an_aliased_subtree_under_large_matrices_compiles_in_bounded_time(
            @ForAll @IntRange(min = 1_500, max = 2_000) int instances, @ForAll @IntRange(min = 2, max = 3) int workflows) {
        StringBuilder y = new StringBuilder("version: 2.1\nx-anchors:\n  l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n");
        for (int i = 1; i <= 4; i++) {
            y.append("  l%d: &l%d [*l%d%s]\n".formatted(i, i, i - 1, (", *l" + (i - 1)).repeat(9)));
        }
        y.append("jobs:\n  build:\n    parameters: {p: {type: integer}}\n    description: [*l4")
                .append(", *l4".repeat(5)).append("]\n    docker: [{image: a}]\n    steps: [checkout]\nworkflows:\n");
        String values = String.join(", ", IntStream.range(0, instances).mapToObj(Integer::toString).toList());
        for (int w = 0; w < workflows; w++) {
            y.append("  w%d:\n    jobs: [{build: {matrix: {parameters: {p: [%s]}}}}]\n".formatted(w, values));
        }
        MutationProperties.check(y.toString());
    }

    /** As above, but the shared subtree holds a parameter reference, so every instance really expands it. */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void a_templated_aliased_subtree_under_large_matrices_hits_the_expansion_limit(
            @ForAll @IntRange(min = 1_000, max = 2_000) int instances) {
        StringBuilder y = new StringBuilder("version: 2.1\nx-anchors:\n  l0: &l0 ['<< parameters.p >>', a, a, a, a]\n");
        for (int i = 1; i <= 4; i++) {
            y.append("  l%d: &l%d [*l%d%s]\n".formatted(i, i, i - 1, (", *l" + (i - 1)).repeat(9)));
        }
        y.append("jobs:\n  build:\n    parameters: {p: {type: integer}}\n    description: [*l4, *l4]\n")
                .append("    docker: [{image: a}]\n    steps: [checkout]\nworkflows:\n");
        String values = String.join(", ", IntStream.range(0, instances).mapToObj(Integer::toString).toList());
        y.append("  w:\n    jobs: [{build: {matrix: {parameters: {p: [%s]}}}}]\n".formatted(values));
        MutationProperties.check(y.toString());
    }

    /**
     * Found by {@link MutationProperties}: an executor value nested nine anchors deep, each aliased three more times
     * (4^8 copies), holding a line of a hundred references to an unknown pipeline value. Every copy of every reference
     * is an error; they must stop at the expansion budget, not be worked out (with suggestions) one by one.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void an_aliased_line_of_unknown_references_compiles_in_bounded_time(@ForAll @IntRange(min = 80, max = 120) int refs) {
        StringBuilder y = new StringBuilder("version: 2.1\njobs:\n  ios:\n    macos:\n");
        String indent = "    ";
        for (int level = 9; level >= 2; level--) {
            y.append(indent).append("- &id%03d\n".formatted(level));
            indent += "  ";
        }
        y.append(indent).append("- \"").append("<< pipeline.steps >>".repeat(refs)).append("\"\n");
        for (int level = 2; level <= 9; level++) {
            indent = indent.substring(2);
            y.append((indent + "- *id%03d\n".formatted(level)).repeat(3));
        }
        y.append("    steps: [checkout]\nworkflows:\n  ios:\n    jobs: [ios]\n");
        MutationProperties.check(y.toString());
    }

    /**
     * Found by {@link MutationProperties} in CI: a step with hundreds of unknown keys is hundreds of warnings; past
     * the diagnostics cap the note about the dropped ones must stay a warning, so the config still compiles.
     */
    @Property(tries = 2, shrinking = ShrinkingMode.OFF)
    void more_warnings_than_are_shown_still_compile(@ForAll @IntRange(min = 501, max = 900) int keys) {
        StringBuilder y = new StringBuilder("version: 2.1\njobs:\n  build:\n    docker: [{image: a}]\n"
                + "    steps:\n      - restore_cache:\n          keys: [a]\n");
        IntStream.range(0, keys).forEach(i -> y.append("          keys-%d: [a]\n".formatted(i)));
        y.append("workflows:\n  w:\n    jobs: [build]\n");
        MutationProperties.check(y.toString());
    }
}
