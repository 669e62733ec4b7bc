package dev.gantry.agent.task;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Replaces every secret value, and the forms a step commonly prints one in, with {@link #MASK}: the value itself, each
 * of its lines when it has several, its standard base64 (of the value alone, as {@code printf %s "$S" | base64}
 * prints it, and followed by a newline, as {@code echo "$S" | base64} does; with and without {@code =} padding, and
 * wrapped at 76 columns as GNU base64 wraps) and its URL encodings ({@code +} or {@code %20} for a space, and RFC
 * 3986's). Matching is on UTF-8 bytes, so output that is not UTF-8 passes through untouched; where forms overlap, the
 * leftmost match wins and, at one place, the longest. Values shorter than {@link #MIN_LENGTH} characters are not
 * masked. Whole texts go through {@link #mask(String)}; a stream of chunks goes through an {@link MaskedOutput}, which
 * also catches a value split between chunks. Immutable and thread-safe.
 */
final class SecretMasker {
    /** What a secret is replaced with, as CircleCI shows it. */
    static final String MASK = "********";
    /**
     * Shorter values are not masked: masking {@code abc} or {@code 1} everywhere would garble ordinary output and,
     * by where the stars appear, tell the value anyway. CircleCI draws the same line.
     */
    static final int MIN_LENGTH = 4;
    /** GNU {@code base64} breaks its output into lines of this many characters. */
    private static final int BASE64_COLUMNS = 76;
    private static final byte[] MASK_BYTES = MASK.getBytes(StandardCharsets.UTF_8);
    /** {@link #match}'s answer when the input ends inside a form that may go on: wait for more input. */
    private static final int UNDECIDED = -1;

    static final SecretMasker NONE = new SecretMasker(List.of());

    /** Forms by their first byte: a trie of the forms' bytes. */
    private final Node[] roots = new Node[256];
    private final boolean empty;

    private SecretMasker(Collection<String> forms) {
        for (String form : forms) {
            add(form.getBytes(StandardCharsets.UTF_8));
        }
        this.empty = forms.isEmpty();
    }

    /** A masker for these values (nulls and values under {@link #MIN_LENGTH} characters are ignored). */
    static SecretMasker of(Collection<String> values) {
        Set<String> forms = new LinkedHashSet<>();
        for (String value : values) {
            forms.addAll(forms(value));
        }
        return forms.isEmpty() ? NONE : new SecretMasker(forms);
    }

    /** Every form of {@code value} that is masked; none when it is too short to mask. */
    static Set<String> forms(String value) {
        Set<String> forms = new LinkedHashSet<>();
        if (!maskable(value)) {
            return forms;
        }
        forms.add(value);
        // CircleCI masks a multi-line value whole; its lines are masked too, as tools print them one by one
        for (String line : value.split("\r?\n")) {
            if (maskable(line)) {
                forms.add(line);
            }
        }
        for (String encoded : List.of(base64(value), base64(value + "\n"))) {
            forms.add(encoded);
            forms.add(encoded.replaceAll("=+$", ""));
            if (encoded.length() > BASE64_COLUMNS) {
                forms.add(wrap(encoded));
            }
        }
        String formEncoded = URLEncoder.encode(value, StandardCharsets.UTF_8);
        forms.add(formEncoded);
        forms.add(formEncoded.replace("+", "%20")); // URLEncoder writes a literal + as %2B, so every + is a space
        forms.add(percentEncoded(value));
        return forms;
    }

    /** True when nothing is masked. */
    boolean isEmpty() {
        return empty;
    }

    /** {@code text} with every form masked; {@code text} itself when none occurs in it. */
    String mask(String text) {
        if (empty || text == null || text.isEmpty()) {
            return text;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Bytes out = new Bytes(bytes.length);
        scan(bytes, 0, bytes.length, true, out);
        return out.masked ? new String(out.array, 0, out.size, StandardCharsets.UTF_8) : text;
    }

    /** {@code bytes} with every form masked. */
    byte[] mask(byte[] bytes) {
        if (empty) {
            return bytes;
        }
        Bytes out = new Bytes(bytes.length);
        scan(bytes, 0, bytes.length, true, out);
        return out.masked ? Arrays.copyOf(out.array, out.size) : bytes;
    }

    /**
     * Copies {@code data[from, to)} to {@code out} with the forms masked. Unless {@code end}, stops at the first place
     * where the input ends inside a form that may still go on, and returns that place (the caller keeps the rest
     * for the next chunk); else returns {@code to}.
     */
    int scan(byte[] data, int from, int to, boolean end, Bytes out) {
        int copied = from;
        int i = from;
        while (i < to) {
            if (roots[data[i] & 0xff] == null) {
                i++;
                continue;
            }
            int length = match(data, i, to, end);
            if (length == UNDECIDED) {
                break;
            }
            if (length == 0) {
                i++;
                continue;
            }
            out.append(data, copied, i - copied);
            out.append(MASK_BYTES, 0, MASK_BYTES.length);
            out.masked = true;
            i += length;
            copied = i;
        }
        out.append(data, copied, i - copied);
        return i;
    }

    /** The length of the longest form at {@code data[at]}, 0 for none, or {@link #UNDECIDED}. */
    private int match(byte[] data, int at, int to, boolean end) {
        Node node = roots[data[at] & 0xff];
        int longest = 0;
        int i = at + 1;
        while (true) {
            if (node.ends) {
                longest = i - at;
            }
            if (node.keys.length == 0) {
                return longest;
            }
            if (i == to) {
                return end ? longest : UNDECIDED;
            }
            node = node.child(data[i]);
            if (node == null) {
                return longest;
            }
            i++;
        }
    }

    private void add(byte[] form) {
        int first = form[0] & 0xff;
        if (roots[first] == null) {
            roots[first] = new Node();
        }
        Node node = roots[first];
        for (int i = 1; i < form.length; i++) {
            node = node.childOrNew(form[i]);
        }
        node.ends = true;
    }

    private static boolean maskable(String value) {
        return value != null && value.codePointCount(0, value.length()) >= MIN_LENGTH;
    }

    private static String base64(String value) {
        return Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8));
    }

    private static String wrap(String encoded) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < encoded.length(); i += BASE64_COLUMNS) {
            out.append(i == 0 ? "" : "\n").append(encoded, i, Math.min(encoded.length(), i + BASE64_COLUMNS));
        }
        return out.toString();
    }

    /** RFC 3986: every byte but the unreserved {@code A-Z a-z 0-9 - . _ ~} as %XX, as jq's {@code @uri} writes it. */
    private static String percentEncoded(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** A trie node: the bytes that may follow, few for secrets, so kept in small arrays. */
    private static final class Node {
        private byte[] keys = new byte[0];
        private Node[] children = new Node[0];
        private boolean ends;

        Node child(byte b) {
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] == b) {
                    return children[i];
                }
            }
            return null;
        }

        Node childOrNew(byte b) {
            Node child = child(b);
            if (child == null) {
                child = new Node();
                keys = Arrays.copyOf(keys, keys.length + 1);
                keys[keys.length - 1] = b;
                children = Arrays.copyOf(children, children.length + 1);
                children[children.length - 1] = child;
            }
            return child;
        }
    }

    /** A growing byte buffer that notes whether anything was masked. Not thread-safe. */
    static final class Bytes {
        byte[] array;
        int size;
        boolean masked;

        Bytes(int capacity) {
            array = new byte[Math.max(16, capacity)];
        }

        void append(byte[] bytes, int offset, int count) {
            if (size + count > array.length) {
                array = Arrays.copyOf(array, Math.max(size + count, array.length * 2));
            }
            System.arraycopy(bytes, offset, array, size, count);
            size += count;
        }
    }
}
