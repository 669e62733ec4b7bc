package dev.gantry.agent.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Go's filepath.Match on single names, which is what CircleCI's workspace paths follow. */
class PathGlobTest {
    private static boolean matches(String pattern, String name) {
        return PathGlob.compile(pattern).matcher(name).matches();
    }

    @Test
    void a_star_is_any_run_of_characters_dotfiles_included_and_two_stars_are_one() {
        assertThat(matches("*.jar", "app.jar")).isTrue();
        assertThat(matches("*.jar", ".hidden.jar")).isTrue();
        assertThat(matches("*.jar", "app.jar.md5")).isFalse();
        assertThat(matches("app*", "app")).isTrue();
        assertThat(matches("**.jar", "app.jar")).isTrue();
    }

    @Test
    void a_question_mark_is_exactly_one_character() {
        assertThat(matches("v?.txt", "v1.txt")).isTrue();
        assertThat(matches("v?.txt", "v10.txt")).isFalse();
        assertThat(matches("v?.txt", "v.txt")).isFalse();
    }

    @Test
    void classes_take_ranges_negation_and_escapes() {
        assertThat(matches("[a-c]x", "bx")).isTrue();
        assertThat(matches("[a-c]x", "dx")).isFalse();
        assertThat(matches("[^a-c]x", "dx")).isTrue();
        assertThat(matches("[^a-c]x", "ax")).isFalse();
        assertThat(matches("[\\]]", "]")).isTrue();
        assertThat(matches("[\\-+]", "-")).isTrue();
        assertThat(matches("[.]*", ".env")).isTrue();
        assertThat(matches("[.]*", "env")).isFalse();
    }

    @Test
    void a_backslash_makes_the_next_character_literal_and_regex_characters_mean_themselves() {
        assertThat(matches("\\[x].txt", "[x].txt")).isTrue();
        assertThat(matches("\\*", "*")).isTrue();
        assertThat(matches("\\*", "a")).isFalse();
        assertThat(matches("a+(b)|c$.txt", "a+(b)|c$.txt")).isTrue();
        assertThat(matches("a.txt", "aXtxt")).isFalse();
    }

    @Test
    void a_malformed_pattern_says_what_is_wrong() {
        assertThatThrownBy(() -> PathGlob.compile("[abc")).hasMessage("malformed pattern [abc: a [ is not closed");
        assertThatThrownBy(() -> PathGlob.compile("a\\")).hasMessage("malformed pattern a\\: it ends with an escaping \\");
        assertThatThrownBy(() -> PathGlob.compile("[]a]")).hasMessageContaining("a ] in a class must be escaped");
        assertThatThrownBy(() -> PathGlob.compile("[z-a]")).hasMessageContaining("the range z-a runs backwards");
    }

    @Test
    void only_the_four_special_characters_make_a_pattern() {
        assertThat(PathGlob.isPattern("build/libs")).isFalse();
        assertThat(PathGlob.isPattern("~/.m2/repository")).isFalse();
        assertThat(PathGlob.isPattern("build/*.jar")).isTrue();
        assertThat(PathGlob.isPattern("v?")).isTrue();
        assertThat(PathGlob.isPattern("[ab]")).isTrue();
        assertThat(PathGlob.isPattern("a\\b")).isTrue();
    }
}
