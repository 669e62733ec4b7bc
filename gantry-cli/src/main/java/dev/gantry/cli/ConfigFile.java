package dev.gantry.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads the config file a command was given, reporting failure in the same shape as a diagnostic. */
final class ConfigFile {
    private ConfigFile() {
    }

    /** The file's UTF-8 text, or null after printing {@code FILE: error: cannot read: REASON} to {@code out}. */
    static String read(Path file, PrintWriter out) {
        try {
            if (Files.isDirectory(file)) {
                throw new IOException("is a directory");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            out.println(file + ": error: cannot read: " + reason(e));
            out.flush();
            return null;
        }
    }

    private static String reason(IOException e) {
        return switch (e) {
            case NoSuchFileException x -> "no such file";
            case AccessDeniedException x -> "permission denied";
            case CharacterCodingException x -> "not UTF-8 text";
            default -> e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        };
    }
}
