package dev.gantry.config;

import java.util.List;

/** A short, readable account of where two texts first differ, for golden-file failures. */
final class LineDiff {
    private static final int CONTEXT = 3;

    private LineDiff() {
    }

    static String of(String expected, String actual) {
        List<String> a = expected.lines().toList();
        List<String> b = actual.lines().toList();
        int first = 0;
        while (first < a.size() && first < b.size() && a.get(first).equals(b.get(first))) {
            first++;
        }
        StringBuilder out = new StringBuilder("first difference at line " + (first + 1) + "\n");
        for (int i = Math.max(0, first - CONTEXT); i < first; i++) {
            out.append("  ").append(a.get(i)).append('\n');
        }
        for (int i = first; i < Math.min(a.size(), first + CONTEXT + 1); i++) {
            out.append("- ").append(a.get(i)).append('\n');
        }
        for (int i = first; i < Math.min(b.size(), first + CONTEXT + 1); i++) {
            out.append("+ ").append(b.get(i)).append('\n');
        }
        out.append("(expected ").append(a.size()).append(" lines, got ").append(b.size()).append(")\n");
        return out.toString();
    }
}
