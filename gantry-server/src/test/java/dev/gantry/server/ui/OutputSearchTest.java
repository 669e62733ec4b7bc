package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OutputSearchTest {
    @Test
    void finds_lines_in_any_case_with_their_numbers_and_byte_offsets() throws IOException {
        OutputSearch.Result result = search("$ make\nBUILD FAILED\nok\nbuild failed again", "build failed", 10);

        assertThat(result.hits()).extracting(OutputSearch.Hit::line).containsExactly(2L, 4L);
        assertThat(result.hits()).extracting(OutputSearch.Hit::offset).containsExactly(7L, 23L);
        assertThat(shown(result.hits().get(0))).isEqualTo("[BUILD FAILED]");
        assertThat(shown(result.hits().get(1))).isEqualTo("[build failed] again");
        assertThat(result.more()).isFalse();
        assertThat(result.bytesRead()).isEqualTo(41);
    }

    @Test
    void colours_are_stripped_before_matching_so_a_coloured_word_is_found_whole() throws IOException {
        OutputSearch.Result result = search("\u001b[31mERR\u001b[0mOR: disk full\n", "error", 10);

        assertThat(result.hits()).singleElement().satisfies(hit ->
                assertThat(shown(hit)).isEqualTo("[ERROR]: disk full"));
    }

    @Test
    void regex_metacharacters_are_plain_text() throws IOException {
        OutputSearch.Result result = search("a.b\naxb\n(a+)+$\n", "(a+)+$", 10);

        assertThat(result.hits()).extracting(OutputSearch.Hit::line).containsExactly(3L);
        assertThat(search("a.b\naxb\n", "a.b", 10).hits()).extracting(OutputSearch.Hit::line).containsExactly(1L);
    }

    @Test
    void every_match_of_a_line_is_marked_and_a_partial_match_does_not_hide_a_later_one() throws IOException {
        assertThat(shown(search("aab abab aab\n", "aab", 10).hits().getFirst())).isEqualTo("[aab] abab [aab]");
        assertThat(shown(search("ababac\n", "abac", 10).hits().getFirst())).isEqualTo("ab[abac]");
    }

    @Test
    void stops_after_the_cap_and_says_there_is_more() throws IOException {
        String output = "hit\n".repeat(50);

        OutputSearch.Result result = search(output, "HIT", 20);

        assertThat(result.hits()).hasSize(20);
        assertThat(result.more()).isTrue();
    }

    @Test
    void a_long_line_shows_a_window_around_its_first_match() throws IOException {
        String line = "x".repeat(1000) + "needle" + "y".repeat(1000);

        OutputSearch.Hit hit = search(line, "needle", 1).hits().getFirst();

        String shown = shown(hit);
        assertThat(shown).startsWith("…").endsWith("…").contains("[needle]");
        assertThat(shown.length()).isLessThan(OutputSearch.SHOWN_CHARS + 10);
    }

    @Test
    void lines_split_across_reads_are_whole_and_output_of_any_size_is_read_in_chunks() throws IOException {
        // 3 MiB of output with one match near the end, handed over a few bytes at a time.
        StringBuilder output = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            output.append("line ").append(i).append(" of a long build log\n");
        }
        output.append("the needle\n");
        byte[] bytes = output.toString().getBytes(StandardCharsets.UTF_8);
        InputStream trickle = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 7));
            }
        };

        OutputSearch.Result result = OutputSearch.search(trickle, "Needle", 5);

        assertThat(result.hits()).singleElement().satisfies(hit -> assertThat(hit.line()).isEqualTo(100_001));
        assertThat(result.bytesRead()).isEqualTo(bytes.length);
    }

    @Test
    void a_query_that_would_backtrack_a_regex_costs_one_pass() throws IOException {
        // Exponential for a backtracking regex like (a*)*b; linear here: KMP never moves back in the text.
        String output = ("a".repeat(60_000) + "\n").repeat(50);

        long started = System.nanoTime();
        OutputSearch.Result result = search(output, "a".repeat(199) + "b", 10);
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertThat(result.hits()).isEmpty();
        assertThat(millis).as("a loose bound: 3 MB searched").isLessThan(10_000);
    }

    @Test
    void an_empty_query_is_refused() {
        assertThatThrownBy(() -> search("x\n", "", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_line_beyond_the_searched_length_is_searched_in_its_first_part_and_numbering_goes_on() throws IOException {
        String output = "z".repeat(OutputSearch.MAX_LINE_BYTES + 10) + "late\nlate again\n";

        OutputSearch.Result result = search(output, "late", 10);

        assertThat(result.hits()).extracting(OutputSearch.Hit::line).containsExactly(2L);
    }

    private static OutputSearch.Result search(String output, String query, int max) throws IOException {
        return OutputSearch.search(new ByteArrayInputStream(output.getBytes(StandardCharsets.UTF_8)), query, max);
    }

    /** The shown parts, each match in brackets. */
    private static String shown(OutputSearch.Hit hit) {
        List<OutputSearch.Part> parts = hit.parts();
        return parts.stream().map(p -> p.match() ? "[" + p.text() + "]" : p.text()).collect(Collectors.joining());
    }
}
