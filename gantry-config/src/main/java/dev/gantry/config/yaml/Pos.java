package dev.gantry.config.yaml;

/** A 1-based position in a named file. */
public record Pos(String file, int line, int column) {
    @Override
    public String toString() {
        return file + ":" + line + ":" + column;
    }
}
