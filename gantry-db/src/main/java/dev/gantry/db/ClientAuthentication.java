package dev.gantry.db;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The embedded cluster's {@code pg_hba.conf}: every connection, over the Unix socket or TCP on 127.0.0.1, must give
 * the superuser's password (scram-sha-256); nothing is trusted and nothing else may connect. Gantry owns this file: a
 * start that finds anything else in it (a cluster an older Gantry created, which trusted every local connection, or a
 * hand edit) sets the password and writes it anew. Stateless.
 */
final class ClientAuthentication {
    static final String FILE_NAME = "pg_hba.conf";
    static final String CONTENT = """
            # Written by Gantry, which writes it again when it finds anything else here. Every connection gives the
            # superuser's password, kept beside this data directory in <data directory>.password. Never "trust":
            # other users of this machine must not get in.
            # TYPE  DATABASE  USER  ADDRESS       METHOD
            local   all       all                 scram-sha-256
            host    all       all   127.0.0.1/32  scram-sha-256
            """;

    private ClientAuthentication() {
    }

    /** Whether the cluster's {@code pg_hba.conf} is exactly what {@link #write} writes. */
    static boolean isCurrent(Path dataDirectory) {
        Path file = dataDirectory.resolve(FILE_NAME);
        try {
            return Files.readString(file, StandardCharsets.UTF_8).equals(CONTENT);
        } catch (NoSuchFileException missing) {
            return false;
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot read " + file + ": " + failure, failure);
        }
    }

    /** Replaces the cluster's {@code pg_hba.conf}, atomically; the server reads it when it starts. */
    static void write(Path dataDirectory) {
        Path file = dataDirectory.resolve(FILE_NAME);
        try {
            Path temporary = Files.createTempFile(dataDirectory, "." + FILE_NAME + "-", ".tmp",
                    PosixFilePermissions.asFileAttribute(PasswordFile.OWNER_ONLY));
            try {
                Files.writeString(temporary, CONTENT, StandardCharsets.UTF_8);
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot write " + file + ": " + failure, failure);
        }
    }
}
