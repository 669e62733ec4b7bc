package dev.gantry.server.ui;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A node's output cut into what a live job page appends, step by step. A page holds, per step, the HTML of its
 * finished lines and, after them, its last line while that may still grow (a tail it replaces, so that a line written
 * in pieces, or redrawn with a carriage return, shows as a terminal shows it). Where the page is in the output is a
 * {@link Cursor}: the byte its last line starts at and the colours in effect there, which is what a reconnecting
 * stream sends back as its {@code Last-Event-ID}. A tail is cut before an incomplete UTF-8 character, which waits for
 * its other bytes; each step starts with default colours, as on the page rendered whole. Pure.
 */
final class LiveOutput {
    /** The longest unfinished line kept replaceable; beyond it the line is written as final (a bar that never ends). */
    static final int MAX_TAIL_BYTES = 64 << 10;

    private LiveOutput() {
    }

    /** Where a page is in a node's output: the start of its last (unfinished) line, and the colours there. */
    record Cursor(long offset, String style) {
        static Cursor start(long offset) {
            return new Cursor(offset, new Ansi.Renderer().state());
        }

        /** {@code OFFSET/STYLE}: the SSE event id that brings a reconnecting stream back here. */
        String id() {
            return offset + "/" + style;
        }

        /** The cursor an event id names; empty for anything else. */
        static Optional<Cursor> parse(String id) {
            if (id == null || !id.matches("\\d{1,18}/[-.0-9]{5,12}")) {
                return Optional.empty();
            }
            String[] parts = id.split("/", 2);
            return Optional.of(new Cursor(Long.parseLong(parts[0]), parts[1]));
        }
    }

    /** What the output adds to one step: finished lines to append, and the new unfinished line ("" for none). */
    record Part(int step, String lines, String tail) {
    }

    /** The parts, in order, and where the page is after them. */
    record Delta(List<Part> parts, Cursor next) {
    }

    /**
     * What {@code bytes}, the output from {@code cursor.offset()} on, adds to a page at {@code cursor}.
     *
     * @param steps where each step's output starts, in the order the steps ran
     * @param open  whether the last step may still write (its job has not ended): else its last line is final
     */
    static Delta advance(Cursor cursor, byte[] bytes, List<UiReads.StepOffset> steps, boolean open) {
        long base = cursor.offset(); // where bytes[0] is in the output
        long end = base + bytes.length;
        int k = stepAt(steps, cursor.offset());
        if (k < 0) { // before the first step: such bytes belong to no step
            if (steps.isEmpty() || steps.getFirst().offset() > end) {
                return new Delta(List.of(), cursor);
            }
            k = 0;
            cursor = Cursor.start(steps.getFirst().offset());
        }
        List<Part> parts = new ArrayList<>();
        long position = cursor.offset();
        Ansi.Renderer renderer = Ansi.Renderer.resume(cursor.style());
        while (true) {
            long stepEnd = k + 1 < steps.size() ? steps.get(k + 1).offset() : Long.MAX_VALUE;
            int from = (int) (position - base);
            int to = (int) (Math.min(stepEnd, end) - base);
            boolean stepDone = stepEnd <= end || (!open && k + 1 >= steps.size());
            int step = steps.get(k).step();
            if (stepDone) {
                String lines = renderer.render(new String(bytes, from, to - from, StandardCharsets.UTF_8));
                if (!lines.isEmpty() || to > from) {
                    parts.add(new Part(step, lines, ""));
                }
                if (stepEnd > end) {
                    return new Delta(parts, new Cursor(end, renderer.state()));
                }
                k++;
                position = stepEnd;
                renderer = new Ansi.Renderer();
                continue;
            }
            int lineEnd = lastIndexOf(bytes, from, to, (byte) '\n') + 1; // 0: no whole line
            int linesTo = lineEnd > 0 ? lineEnd : from;
            int tailTo = completeCharacters(bytes, linesTo, to);
            if (tailTo - linesTo > MAX_TAIL_BYTES) {
                linesTo = tailTo; // too long to keep replacing: final from here on
            }
            String lines = renderer.render(new String(bytes, from, linesTo - from, StandardCharsets.UTF_8));
            String tail = renderer.copy().render(new String(bytes, linesTo, tailTo - linesTo,
                    StandardCharsets.UTF_8));
            if (to > from) {
                parts.add(new Part(step, lines, tail));
            }
            return new Delta(parts, new Cursor(base + linesTo, renderer.state()));
        }
    }

    /** The index of the last step that starts at or before {@code offset}; -1 when none does. */
    private static int stepAt(List<UiReads.StepOffset> steps, long offset) {
        int at = -1;
        for (int i = 0; i < steps.size() && steps.get(i).offset() <= offset; i++) {
            at = i;
        }
        return at;
    }

    private static int lastIndexOf(byte[] bytes, int from, int to, byte b) {
        for (int i = to - 1; i >= from; i--) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** {@code to}, or less so that a UTF-8 character cut at {@code to} is left out whole. */
    static int completeCharacters(byte[] bytes, int from, int to) {
        int lead = to - 1;
        while (lead >= from && lead > to - 4 && (bytes[lead] & 0xC0) == 0x80) {
            lead--; // continuation bytes
        }
        if (lead < from || (bytes[lead] & 0x80) == 0) {
            return to; // ASCII last, or nothing to judge
        }
        int length = (bytes[lead] & 0xE0) == 0xC0 ? 2 : (bytes[lead] & 0xF0) == 0xE0 ? 3
                : (bytes[lead] & 0xF8) == 0xF0 ? 4 : 1;
        return to - lead >= length ? to : lead;
    }
}
