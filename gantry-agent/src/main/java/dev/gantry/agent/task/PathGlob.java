package dev.gantry.agent.task;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The patterns of {@code persist_to_workspace} paths, which CircleCI reads as Go's {@code filepath.Glob}: {@code *}
 * is any run of characters but {@code /}, {@code ?} one such character, {@code [a-z]} and {@code [^a-z]} a class,
 * {@code \} escapes the next character. Names starting with a dot match like any other; {@code **} is the same as
 * {@code *}. A pattern matches whole names segment by segment, so a match is always at the depth the pattern has.
 * Stateless.
 */
final class PathGlob {
    private PathGlob() {
    }

    /** Whether {@code path} has a character that makes it a pattern rather than a literal path. */
    static boolean isPattern(String path) {
        return path.chars().anyMatch(c -> c == '*' || c == '?' || c == '[' || c == '\\');
    }

    /**
     * The existing paths under {@code base} that {@code pattern} (relative, {@code /}-separated) matches, in name
     * order segment by segment; empty when none does. A directory that cannot be read matches nothing, as in Go.
     *
     * @throws IllegalArgumentException when the pattern is malformed (an unclosed {@code [}, a trailing {@code \})
     */
    static List<Path> matches(Path base, String pattern) {
        // Compiled before the walk, so a malformed pattern is reported even where nothing would be looked at.
        List<Pattern> segments = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String segment : pattern.split("/")) {
            if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(isPattern(segment) ? compile(segment) : null);
                names.add(segment);
            }
        }
        List<Path> current = List.of(base);
        for (int s = 0; s < segments.size(); s++) {
            List<Path> next = new ArrayList<>();
            for (Path dir : current) {
                if (segments.get(s) != null) {
                    next.addAll(children(dir, segments.get(s)));
                } else if (Files.exists(dir.resolve(names.get(s)), LinkOption.NOFOLLOW_LINKS)) {
                    // A plain name is looked up, not matched against every entry of its directory.
                    next.add(dir.resolve(names.get(s)));
                }
            }
            current = next;
        }
        return current;
    }

    private static List<Path> children(Path dir, Pattern name) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                if (name.matcher(entry.getFileName().toString()).matches()) {
                    out.add(entry);
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    /** One segment of a pattern as a regular expression over a single name. */
    static Pattern compile(String segment) {
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < segment.length()) {
            char c = segment.charAt(i++);
            switch (c) {
                case '*' -> {
                    while (i < segment.length() && segment.charAt(i) == '*') {
                        i++;
                    }
                    regex.append(".*");
                }
                case '?' -> regex.append('.');
                case '\\' -> {
                    if (i == segment.length()) {
                        throw bad(segment, "it ends with an escaping \\");
                    }
                    regex.append(Pattern.quote(String.valueOf(segment.charAt(i++))));
                }
                case '[' -> i = characterClass(segment, i, regex);
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    /** Appends the class that starts after the {@code [} at {@code i - 1}; returns the index after its {@code ]}. */
    private static int characterClass(String segment, int i, StringBuilder regex) {
        regex.append('[');
        if (i < segment.length() && segment.charAt(i) == '^') {
            regex.append('^');
            i++;
        }
        boolean empty = true;
        while (true) {
            if (i == segment.length()) {
                throw bad(segment, "a [ is not closed");
            }
            if (segment.charAt(i) == ']' && !empty) {
                regex.append(']');
                return i + 1;
            }
            char[] low = new char[1];
            i = classChar(segment, i, low);
            regex.append(escapeInClass(low[0]));
            if (i < segment.length() && segment.charAt(i) == '-') {
                char[] high = new char[1];
                i = classChar(segment, i + 1, high);
                if (high[0] < low[0]) {
                    throw bad(segment, "the range " + low[0] + "-" + high[0] + " runs backwards");
                }
                regex.append('-').append(escapeInClass(high[0]));
            }
            empty = false;
        }
    }

    /** Reads one possibly escaped character of a class into {@code out[0]}; Go refuses a bare {@code -} or {@code ]}. */
    private static int classChar(String segment, int i, char[] out) {
        if (i == segment.length()) {
            throw bad(segment, "a [ is not closed");
        }
        char c = segment.charAt(i);
        if (c == '-' || c == ']') {
            throw bad(segment, "a " + c + " in a class must be escaped with \\");
        }
        if (c == '\\') {
            if (++i == segment.length()) {
                throw bad(segment, "it ends with an escaping \\");
            }
            c = segment.charAt(i);
        }
        out[0] = c;
        return i + 1;
    }

    private static String escapeInClass(char c) {
        return Character.isLetterOrDigit(c) ? String.valueOf(c) : "\\" + c;
    }

    private static IllegalArgumentException bad(String segment, String why) {
        return new IllegalArgumentException("malformed pattern " + segment + ": " + why);
    }
}
