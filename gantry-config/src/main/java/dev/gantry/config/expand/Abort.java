package dev.gantry.config.expand;

import dev.gantry.config.yaml.Pos;

/**
 * Stops a compile that breached a limit (expansion too large or too deep). The compilation reports it as an ordinary
 * diagnostic; it never leaves the compiler.
 */
public final class Abort extends RuntimeException {
    private final Pos pos;
    private final String path;
    private final String hint;

    public Abort(Pos pos, String path, String message, String hint) {
        super(message, null, false, false);
        this.pos = pos;
        this.path = path;
        this.hint = hint;
    }

    public Pos pos() {
        return pos;
    }

    public String path() {
        return path;
    }

    public String hint() {
        return hint;
    }
}
