package dev.gantry.server.storage;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A relative name inside a store, as {@code /}-separated segments, none of them empty, {@code .} or {@code ..}, none
 * holding a NUL, a backslash or a control character. Names from agents (artifact paths) are untrusted: parse them
 * with {@link #parse}, which refuses anything that could leave the store's root. Immutable.
 */
public record BlobName(List<String> segments) {
    /** The most characters a name may have. */
    public static final int MAX_LENGTH = 1024;
    public static final String RULE = "a relative path of at most " + MAX_LENGTH + " characters, without '..' or '.' "
            + "segments, empty segments, backslashes, NULs or control characters";

    public BlobName {
        segments = List.copyOf(segments);
        if (segments.isEmpty() || segments.stream().anyMatch(s -> !validSegment(s))) {
            throw new IllegalArgumentException("not a blob name: " + segments);
        }
    }

    /** The name {@code text} spells, or empty when it breaks {@link #RULE}. A leading {@code /} is refused too. */
    public static Optional<BlobName> parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty() || text.length() > MAX_LENGTH || text.startsWith("/")) {
            return Optional.empty();
        }
        List<String> segments = List.of(text.split("/", -1));
        return segments.stream().allMatch(BlobName::validSegment) ? Optional.of(new BlobName(segments))
                : Optional.empty();
    }

    /** A name of trusted segments, e.g. {@code of("caches", projectId, hash + ".tar.gz")}. */
    public static BlobName of(String... segments) {
        return new BlobName(List.of(segments));
    }

    /** This name followed by {@code more}'s segments. */
    public BlobName then(BlobName more) {
        List<String> all = new java.util.ArrayList<>(segments);
        all.addAll(more.segments);
        return new BlobName(all);
    }

    /** The last segment, e.g. for guessing a content type. */
    public String fileName() {
        return segments.getLast();
    }

    private static boolean validSegment(String segment) {
        if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
            return false;
        }
        return segment.chars().noneMatch(c -> c < 0x20 || c == 0x7f || c == '\\');
    }

    @Override
    public String toString() {
        return String.join("/", segments);
    }
}
