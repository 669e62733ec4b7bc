package dev.gantry.server.ui;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the lines of a node's output that contain a text, in any case. The text is plain, never a pattern, and is
 * matched by Knuth–Morris–Pratt over case-folded characters: linear in the output whatever the query, so no query
 * can make the server work harder than reading the output once. The output is read in chunks and one line is held at
 * a time (its first {@link #MAX_LINE_BYTES}; the rest of a longer line is not searched), so an output of any size is
 * searched whole. Colours and other escape sequences are stripped before matching ({@link Ansi#strip}).
 * Stateless; each search is independent.
 */
public final class OutputSearch {
    /** The longest query, in characters. */
    static final int MAX_QUERY = 200;
    /** How much of one line is searched. */
    static final int MAX_LINE_BYTES = 64 * 1024;
    /** How much of a long matching line is shown: a window from a little before its first match. */
    static final int SHOWN_CHARS = 300;
    private static final int CONTEXT_BEFORE = 60;
    private static final int CHUNK = 64 * 1024;

    private OutputSearch() {
    }

    /** A piece of a shown line; {@code match} when it is what was searched for. */
    public record Part(String text, boolean match) {
    }

    /**
     * A matching line: its number (1-based) and the byte offset where it starts in the output, and what is shown of
     * it, in parts.
     */
    record Hit(long line, long offset, List<Part> parts) {
    }

    /** The first hits, whether there are more after them, and how far the output was read. */
    record Result(List<Hit> hits, boolean more, long bytesRead) {
    }

    /** The lines of {@code output} containing {@code query} (not empty), at most {@code maxHits} of them. */
    static Result search(InputStream output, String query, int maxHits) throws IOException {
        if (query.isEmpty()) {
            throw new IllegalArgumentException("an empty query matches every line");
        }
        Matcher matcher = new Matcher(query);
        List<Hit> hits = new ArrayList<>();
        byte[] chunk = new byte[CHUNK];
        byte[] line = new byte[MAX_LINE_BYTES];
        int lineLength = 0;
        long lineStart = 0;
        long lineNumber = 1;
        long read = 0;
        boolean more = false;
        for (int n; !more && (n = output.read(chunk)) != -1; ) {
            for (int i = 0; i < n; i++) {
                if (chunk[i] == '\n') {
                    more = !matchLine(matcher, line, lineLength, lineNumber, lineStart, hits, maxHits);
                    if (more) {
                        break;
                    }
                    lineStart = read + i + 1;
                    lineNumber++;
                    lineLength = 0;
                } else if (lineLength < line.length) {
                    line[lineLength++] = chunk[i];
                }
            }
            read += n;
        }
        if (!more && lineLength > 0) {
            more = !matchLine(matcher, line, lineLength, lineNumber, lineStart, hits, maxHits);
        }
        return new Result(List.copyOf(hits), more, read);
    }

    /** Adds the line to {@code hits} if it matches; false when it matches but {@code hits} is full. */
    private static boolean matchLine(Matcher matcher, byte[] line, int length, long number, long start,
                                     List<Hit> hits, int maxHits) {
        String text = Ansi.strip(new String(line, 0, length, StandardCharsets.UTF_8));
        List<int[]> matches = matcher.all(text);
        if (matches.isEmpty()) {
            return true;
        }
        if (hits.size() == maxHits) {
            return false;
        }
        hits.add(new Hit(number, start, parts(text, matches)));
        return true;
    }

    /** The shown window of {@code text}, cut into plain and matching parts. */
    private static List<Part> parts(String text, List<int[]> matches) {
        int from = text.length() <= SHOWN_CHARS ? 0 : Math.max(0, matches.getFirst()[0] - CONTEXT_BEFORE);
        int to = Math.min(text.length(), from + SHOWN_CHARS);
        List<Part> parts = new ArrayList<>();
        if (from > 0) {
            parts.add(new Part("…", false));
        }
        int at = from;
        for (int[] match : matches) {
            int start = Math.max(match[0], at);
            int end = Math.min(match[1], to);
            if (start >= end) {
                continue;
            }
            if (start > at) {
                parts.add(new Part(text.substring(at, start), false));
            }
            parts.add(new Part(text.substring(start, end), true));
            at = end;
        }
        if (at < to) {
            parts.add(new Part(text.substring(at, to), false));
        }
        if (to < text.length()) {
            parts.add(new Part("…", false));
        }
        return parts;
    }

    /** Knuth–Morris–Pratt over characters folded as {@link String#equalsIgnoreCase} folds them. */
    private static final class Matcher {
        private final char[] query;
        private final int[] fallback;

        Matcher(String query) {
            this.query = new char[query.length()];
            for (int i = 0; i < query.length(); i++) {
                this.query[i] = fold(query.charAt(i));
            }
            fallback = new int[this.query.length];
            for (int i = 1, k = 0; i < this.query.length; i++) {
                while (k > 0 && this.query[i] != this.query[k]) {
                    k = fallback[k - 1];
                }
                if (this.query[i] == this.query[k]) {
                    k++;
                }
                fallback[i] = k;
            }
        }

        /** Where the query occurs in {@code text}, as [start, end) pairs, not overlapping, left to right. */
        List<int[]> all(String text) {
            List<int[]> found = new ArrayList<>(1);
            for (int i = 0, k = 0; i < text.length(); i++) {
                char c = fold(text.charAt(i));
                while (k > 0 && c != query[k]) {
                    k = fallback[k - 1];
                }
                if (c == query[k]) {
                    k++;
                }
                if (k == query.length) {
                    found.add(new int[] {i + 1 - k, i + 1});
                    k = 0;
                }
            }
            return found;
        }

        private static char fold(char c) {
            return Character.toLowerCase(Character.toUpperCase(c));
        }
    }
}
