package dev.gantry.server.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LiveOutputTest {
    private static final List<UiReads.StepOffset> ONE_STEP = List.of(new UiReads.StepOffset(0, 0, 0));

    @Test
    void finished_lines_are_appended_and_the_unfinished_one_waits_as_a_tail() {
        LiveOutput.Delta delta = LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("one\ntwo\nthr"), ONE_STEP,
                true);

        assertThat(delta.parts()).containsExactly(new LiveOutput.Part(0, "one\ntwo\n", "thr"));
        assertThat(delta.next().offset()).as("the tail's start").isEqualTo(8);

        LiveOutput.Delta next = LiveOutput.advance(delta.next(), bytes("three\nf"), ONE_STEP, true);
        assertThat(next.parts()).containsExactly(new LiveOutput.Part(0, "three\n", "f"));
        assertThat(next.next().offset()).isEqualTo(14);
    }

    @Test
    void a_utf8_character_cut_at_the_end_waits_for_its_other_bytes() {
        byte[] euro = bytes("price: €");
        byte[] cut = Arrays.copyOf(euro, euro.length - 1);

        LiveOutput.Delta delta = LiveOutput.advance(LiveOutput.Cursor.start(0), cut, ONE_STEP, true);

        assertThat(delta.parts()).containsExactly(new LiveOutput.Part(0, "", "price: "));
        assertThat(LiveOutput.advance(delta.next(), euro, ONE_STEP, true).parts())
                .containsExactly(new LiveOutput.Part(0, "", "price: €"));
    }

    @Test
    void the_colours_at_the_cursor_carry_into_the_next_chunk() {
        LiveOutput.Delta delta = LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("\u001b[31mred\n"), ONE_STEP,
                true);
        LiveOutput.Cursor reconnect = LiveOutput.Cursor.parse(delta.next().id()).orElseThrow();

        assertThat(LiveOutput.advance(reconnect, bytes("still red\n"), ONE_STEP, true).parts())
                .containsExactly(new LiveOutput.Part(0, "<span class=\"a-fg-1\">still red</span>\n", ""));
    }

    @Test
    void output_is_split_by_step_each_starting_with_default_colours_and_a_finished_step_has_no_tail() {
        List<UiReads.StepOffset> steps = List.of(new UiReads.StepOffset(0, 0, 0), new UiReads.StepOffset(0, 1, 11));

        LiveOutput.Delta delta = LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("\u001b[32mok\npartb\n"),
                steps, true);

        assertThat(delta.parts()).containsExactly(
                new LiveOutput.Part(0, "<span class=\"a-fg-2\">ok</span>\n<span class=\"a-fg-2\">par</span>", ""),
                new LiveOutput.Part(1, "tb\n", ""));
        assertThat(delta.next().offset()).isEqualTo(14);
    }

    @Test
    void once_the_job_ended_the_last_line_is_final() {
        assertThat(LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("done"), ONE_STEP, false).parts())
                .containsExactly(new LiveOutput.Part(0, "done", ""));
    }

    @Test
    void output_before_the_first_step_or_without_steps_belongs_to_none() {
        assertThat(LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("x\n"), List.of(), true).next().offset())
                .isZero();
        List<UiReads.StepOffset> late = List.of(new UiReads.StepOffset(0, 0, 4));
        assertThat(LiveOutput.advance(LiveOutput.Cursor.start(0), bytes("pre\nin\n"), late, true).parts())
                .containsExactly(new LiveOutput.Part(0, "in\n", ""));
    }

    @Test
    void a_bad_event_id_is_no_cursor() {
        assertThat(LiveOutput.Cursor.parse("12/-1.-1.0")).hasValue(new LiveOutput.Cursor(12, "-1.-1.0"));
        assertThat(LiveOutput.Cursor.parse("12")).isEmpty();
        assertThat(LiveOutput.Cursor.parse("x/-1.-1.0")).isEmpty();
        assertThat(LiveOutput.Cursor.parse(null)).isEmpty();
    }

    /** However the output is cut into chunks, the page ends up with what one read of all of it shows. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 11, 1000})
    void chunks_add_up_to_the_whole(int chunk) {
        byte[] all = bytes("\u001b[1mbold €\nnext ✓ line\r\nprogress 10%\rprogress 99%\nend");
        String whole = page(List.of(LiveOutput.advance(LiveOutput.Cursor.start(0), all, ONE_STEP, false)));

        LiveOutput.Cursor cursor = LiveOutput.Cursor.start(0);
        StringBuilder lines = new StringBuilder();
        for (int end = Math.min(chunk, all.length); ; end = Math.min(end + chunk, all.length)) {
            boolean last = end == all.length;
            LiveOutput.Delta delta = LiveOutput.advance(cursor, Arrays.copyOfRange(all, (int) cursor.offset(), end),
                    ONE_STEP, !last);
            delta.parts().forEach(p -> lines.append(p.lines()));
            cursor = delta.next();
            if (last) {
                break;
            }
        }
        assertThat(lines.toString()).isEqualTo(whole);
    }

    private static String page(List<LiveOutput.Delta> deltas) {
        StringBuilder html = new StringBuilder();
        deltas.forEach(d -> d.parts().forEach(p -> html.append(p.lines()).append(p.tail())));
        return html.toString();
    }

    private static byte[] bytes(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }
}
