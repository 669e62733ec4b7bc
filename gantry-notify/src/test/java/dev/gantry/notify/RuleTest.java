package dev.gantry.notify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RuleTest {

    @Test
    void every_run_matches_any_status_on_any_branch_and_a_tag() {
        assertThat(Rule.EVERY_RUN.matches("success", null, "main")).isTrue();
        assertThat(Rule.EVERY_RUN.matches("canceled", "failed", "feature/x")).isTrue();
        assertThat(Rule.EVERY_RUN.matches("failed", null, null)).isTrue();
    }

    @Test
    void failure_matches_failed_and_error_but_not_success_or_canceled() {
        Rule rule = new Rule(Rule.When.FAILURE, List.of());
        assertThat(rule.matches("failed", null, "main")).isTrue();
        assertThat(rule.matches("error", "success", "main")).isTrue();
        assertThat(rule.matches("success", "failed", "main")).isFalse();
        assertThat(rule.matches("canceled", null, "main")).isFalse();
    }

    @Test
    void fixed_matches_a_success_only_after_a_failed_run_on_the_branch() {
        Rule rule = new Rule(Rule.When.FIXED, List.of());
        assertThat(rule.matches("success", "failed", "main")).isTrue();
        assertThat(rule.matches("success", "error", "main")).isTrue();
        assertThat(rule.matches("success", "success", "main")).isFalse();
        assertThat(rule.matches("success", null, "main")).as("a first run fixes nothing").isFalse();
        assertThat(rule.matches("success", "canceled", "main")).isFalse();
        assertThat(rule.matches("failed", "failed", "main")).isFalse();
    }

    @Test
    void branch_filters_take_names_and_globs_and_refuse_a_tag() {
        Rule rule = new Rule(Rule.When.ALWAYS, List.of("main", "release/*", "v?"));
        assertThat(rule.matches("success", null, "main")).isTrue();
        assertThat(rule.matches("success", null, "release/1.2")).isTrue();
        assertThat(rule.matches("success", null, "release/1.2/hotfix")).isTrue();
        assertThat(rule.matches("success", null, "v2")).isTrue();
        assertThat(rule.matches("success", null, "v22")).isFalse();
        assertThat(rule.matches("success", null, "mainline")).isFalse();
        assertThat(rule.matches("success", null, "feature.release/x")).isFalse();
        assertThat(rule.matches("success", null, null)).as("a tag's pipeline has no branch").isFalse();
        assertThat(new Rule(Rule.When.ALWAYS, List.of("a.b")).matches("success", null, "aXb"))
                .as("a dot is a dot").isFalse();
    }

    @Test
    void a_branch_pattern_is_one_word_of_1_to_200_characters() {
        assertThat(Rule.validBranchPattern("release/*")).isTrue();
        assertThat(Rule.validBranchPattern("")).isFalse();
        assertThat(Rule.validBranchPattern("two words")).isFalse();
        assertThat(Rule.validBranchPattern("x".repeat(201))).isFalse();
    }
}
