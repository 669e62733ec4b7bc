package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AnsiTest {
    @Test
    void colours_become_spans_and_a_reset_closes_them() {
        assertThat(Ansi.toHtml("\u001b[1;31mFAIL\u001b[0m done\n"))
                .isEqualTo("<span class=\"a-fg-1 a-b\">FAIL</span> done\n");
    }

    @Test
    void stripping_keeps_the_text_a_terminal_shows_without_colours_or_escapes() {
        assertThat(Ansi.strip("\u001b[1;31mFAIL\u001b[0m <b>\u001b]0;t\u0007\u0000 10%\r100%\r\n"))
                .isEqualTo("100%\n");
        assertThat(Ansi.strip("\u001b[32mok\u001b[0m <b>\tdone")).isEqualTo("ok <b>\tdone");
    }

    @Test
    void text_is_escaped_so_output_cannot_inject_markup() {
        assertThat(Ansi.toHtml("<script>alert('x')</script> & \"q\""))
                .isEqualTo("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
    }

    @Test
    void other_escape_sequences_and_control_characters_are_dropped() {
        assertThat(Ansi.toHtml("a\u001b[2Kb\u001b]0;title\u0007c\u0000d\u0008e")).isEqualTo("abcde");
    }

    @Test
    void a_carriage_return_keeps_what_was_written_after_it_as_a_terminal_shows_it() {
        assertThat(Ansi.toHtml("first\n10%\r50%\r100%\nlast\r\n")).isEqualTo("first\n100%\nlast\n");
    }

    @Test
    void bright_and_256_colours_map_to_the_sixteen_and_a_colour_runs_over_lines() {
        assertThat(Ansi.toHtml("\u001b[92mok\u001b[38;5;1mred\u001b[38;5;200mpink\u001b[39m"))
                .isEqualTo("<span class=\"a-fg-10\">ok</span><span class=\"a-fg-1\">red</span>pink");
        assertThat(Ansi.toHtml("\u001b[32mone\ntwo"))
                .as("each line closes its spans, so that lines can be appended one by one")
                .isEqualTo("<span class=\"a-fg-2\">one</span>\n<span class=\"a-fg-2\">two</span>");
    }

    @Test
    void a_renderer_carries_the_colours_from_one_chunk_to_the_next_and_writes_them_down() {
        Ansi.Renderer renderer = new Ansi.Renderer();
        assertThat(renderer.render("\u001b[1;32mgreen\n")).isEqualTo("<span class=\"a-fg-2 a-b\">green</span>\n");
        String state = renderer.state();

        assertThat(Ansi.Renderer.resume(state).render("still\u001b[0m plain"))
                .isEqualTo("<span class=\"a-fg-2 a-b\">still</span> plain");
        assertThat(Ansi.Renderer.resume("nonsense").render("x")).isEqualTo("x");
    }

    @Test
    void a_carriage_return_inside_a_coloured_line_leaves_balanced_spans() {
        assertThat(Ansi.toHtml("\u001b[31mA\nB\rC")).isEqualTo(
                "<span class=\"a-fg-1\">A</span>\n<span class=\"a-fg-1\">C</span>");
    }
}
