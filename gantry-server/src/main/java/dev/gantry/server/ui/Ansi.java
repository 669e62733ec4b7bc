package dev.gantry.server.ui;

/**
 * Turns terminal output into safe HTML: text is escaped, SGR colour and weight codes (ESC [ … m) become spans with
 * classes {@code a-fg-N}, {@code a-bg-N}, {@code a-b}, {@code a-i}, {@code a-u}, and every other escape sequence and
 * control character is dropped. A carriage return without a newline (a progress bar redrawing its line) keeps only
 * what was written after it, as a terminal would show it. Every line is self-contained (a colour that runs over a
 * newline is closed before it and opened again after it), so that a live page can append lines one chunk at a time
 * with a {@link Renderer} that carries the colours from one chunk to the next. Pure.
 */
final class Ansi {
    private Ansi() {
    }

    /** {@code text} as HTML, starting with default colours. */
    static String toHtml(String text) {
        return new Renderer().render(text);
    }

    /**
     * Renders text chunk after chunk, carrying the colours in effect from one chunk to the next; {@link #state()}
     * writes them down (for an SSE event id) and {@link #resume(String)} reads them back. Not thread-safe.
     */
    static final class Renderer {
        private final Style style;

        Renderer() {
            this(new Style());
        }

        private Renderer(Style style) {
            this.style = style;
        }

        /** A renderer that starts with the colours {@link #state()} wrote down; default ones for a bad state. */
        static Renderer resume(String state) {
            return new Renderer(Style.decode(state));
        }

        /** The colours in effect now, as a short text of digits, dots and minus signs. */
        String state() {
            return style.encode();
        }

        /** A renderer that starts where this one is and leaves it as it is. */
        Renderer copy() {
            return new Renderer(Style.decode(style.encode()));
        }

        /** {@code text} as HTML whose every span is closed; the colours it sets stay in effect for the next call. */
        String render(String text) {
            StringBuilder html = new StringBuilder(text.length() + 64);
            Span span = Span.open(html, style);
            int lineStart = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\u001b') {
                    int end = sequenceEnd(text, i);
                    if (end < text.length() && text.charAt(end) == 'm' && i + 1 < text.length()
                            && text.charAt(i + 1) == '[') {
                        span.close(html);
                        style.apply(text.substring(i + 2, end));
                        span = Span.open(html, style);
                    }
                    i = Math.min(end, text.length() - 1);
                } else if (c == '\r') {
                    if (i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                        continue;
                    }
                    // Drop what was written on this line before the carriage return.
                    html.setLength(lineStart);
                    span = Span.open(html, style);
                } else if (c == '\n') {
                    span.close(html);
                    html.append('\n');
                    lineStart = html.length();
                    span = Span.open(html, style);
                } else if (c == '\t' || c >= ' ') {
                    switch (c) {
                        case '<' -> html.append("&lt;");
                        case '>' -> html.append("&gt;");
                        case '&' -> html.append("&amp;");
                        case '"' -> html.append("&quot;");
                        case '\'' -> html.append("&#39;");
                        default -> html.append(c);
                    }
                }
            }
            span.close(html);
            return html.toString();
        }
    }

    /** An opening tag written at {@code start} (none when {@code length} is 0), closed or taken back if empty. */
    private record Span(int start, int length) {
        static Span open(StringBuilder html, Style style) {
            int start = html.length();
            if (!style.isDefault()) {
                html.append("<span class=\"").append(style.classes()).append("\">");
            }
            return new Span(start, html.length() - start);
        }

        void close(StringBuilder html) {
            if (length == 0) {
                return;
            }
            if (html.length() == start + length) {
                html.setLength(start); // nothing inside: no empty span
            } else {
                html.append("</span>");
            }
        }
    }

    /**
     * The text of {@code text} as a terminal shows it, without colours: escape sequences and control characters
     * dropped, a line redrawn after a carriage return kept as redrawn. What a search of the output matches against.
     */
    static String strip(String text) {
        StringBuilder plain = new StringBuilder(text.length());
        int lineStart = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u001b') {
                i = Math.min(sequenceEnd(text, i), text.length() - 1);
            } else if (c == '\r') {
                if (i + 1 >= text.length() || text.charAt(i + 1) != '\n') {
                    plain.setLength(lineStart);
                }
            } else if (c == '\n') {
                plain.append('\n');
                lineStart = plain.length();
            } else if (c == '\t' || c >= ' ') {
                plain.append(c);
            }
        }
        return plain.toString();
    }

    /** The index of the final byte of the escape sequence starting at {@code start}. */
    private static int sequenceEnd(String text, int start) {
        if (start + 1 >= text.length()) {
            return start;
        }
        char kind = text.charAt(start + 1);
        if (kind == '[') {
            int i = start + 2;
            while (i < text.length() && (text.charAt(i) < '@' || text.charAt(i) > '~')) {
                i++;
            }
            return i;
        }
        if (kind == ']') { // OSC, up to BEL or ESC \
            int i = start + 2;
            while (i < text.length() && text.charAt(i) != '\u0007'
                    && !(text.charAt(i) == '\u001b' && i + 1 < text.length() && text.charAt(i + 1) == '\\')) {
                i++;
            }
            return i < text.length() && text.charAt(i) == '\u001b' ? i + 1 : i;
        }
        return start + 1;
    }

    private static final class Style {
        private int foreground = -1;
        private int background = -1;
        private boolean bold;
        private boolean italic;
        private boolean underline;

        void apply(String parameters) {
            String[] codes = parameters.isEmpty() ? new String[] {"0"} : parameters.split(";", -1);
            for (int i = 0; i < codes.length; i++) {
                int code = parse(codes[i]);
                if (code == 0) {
                    foreground = -1;
                    background = -1;
                    bold = false;
                    italic = false;
                    underline = false;
                } else if (code == 1) {
                    bold = true;
                } else if (code == 3) {
                    italic = true;
                } else if (code == 4) {
                    underline = true;
                } else if (code == 22) {
                    bold = false;
                } else if (code == 23) {
                    italic = false;
                } else if (code == 24) {
                    underline = false;
                } else if (code >= 30 && code <= 37) {
                    foreground = code - 30;
                } else if (code >= 90 && code <= 97) {
                    foreground = code - 90 + 8;
                } else if (code == 39) {
                    foreground = -1;
                } else if (code >= 40 && code <= 47) {
                    background = code - 40;
                } else if (code >= 100 && code <= 107) {
                    background = code - 100 + 8;
                } else if (code == 49) {
                    background = -1;
                } else if ((code == 38 || code == 48) && i + 2 < codes.length && parse(codes[i + 1]) == 5) {
                    // 256 colours: the first 16 map to ours, the rest are left at the default.
                    int colour = parse(codes[i + 2]);
                    int mapped = colour >= 0 && colour < 16 ? colour : -1;
                    if (code == 38) {
                        foreground = mapped;
                    } else {
                        background = mapped;
                    }
                    i += 2;
                } else if ((code == 38 || code == 48) && i + 1 < codes.length && parse(codes[i + 1]) == 2) {
                    i += Math.min(4, codes.length - 1 - i); // true colour: ignored
                }
            }
        }

        /** {@code FG.BG.FLAGS}, e.g. {@code 2.-1.1} for bold green: what {@link #decode} reads back. */
        String encode() {
            return foreground + "." + background + "." + ((bold ? 1 : 0) | (italic ? 2 : 0) | (underline ? 4 : 0));
        }

        /** The style {@link #encode()} wrote; the default one for anything else. */
        static Style decode(String encoded) {
            Style style = new Style();
            String[] parts = encoded == null ? new String[0] : encoded.split("\\.", -1);
            if (parts.length != 3 || !parts[0].matches("-1|1?\\d") || !parts[1].matches("-1|1?\\d")
                    || !parts[2].matches("[0-7]")) {
                return style;
            }
            style.foreground = Math.min(15, Integer.parseInt(parts[0]));
            style.background = Math.min(15, Integer.parseInt(parts[1]));
            int flags = Integer.parseInt(parts[2]);
            style.bold = (flags & 1) != 0;
            style.italic = (flags & 2) != 0;
            style.underline = (flags & 4) != 0;
            return style;
        }

        boolean isDefault() {
            return foreground < 0 && background < 0 && !bold && !italic && !underline;
        }

        String classes() {
            StringBuilder classes = new StringBuilder();
            if (foreground >= 0) {
                classes.append("a-fg-").append(foreground).append(' ');
            }
            if (background >= 0) {
                classes.append("a-bg-").append(background).append(' ');
            }
            if (bold) {
                classes.append("a-b ");
            }
            if (italic) {
                classes.append("a-i ");
            }
            if (underline) {
                classes.append("a-u ");
            }
            return classes.toString().strip();
        }

        private static int parse(String code) {
            if (code.isEmpty() || code.length() > 3) {
                return code.isEmpty() ? 0 : -1;
            }
            for (int i = 0; i < code.length(); i++) {
                if (!Character.isDigit(code.charAt(i))) {
                    return -1;
                }
            }
            return Integer.parseInt(code);
        }
    }
}
