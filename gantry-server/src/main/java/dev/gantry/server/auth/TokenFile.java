package dev.gantry.server.auth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * The file that hands a token to the operator, readable by its owner only (mode 0600). A write goes to a temporary
 * file in the same directory, is flushed to disk and then renamed over the old file, so a reader sees the old token
 * or the new one, never half of one, and no other user ever sees it.
 */
final class TokenFile {
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Path path;

    TokenFile(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    /** The text in the file, stripped of surrounding whitespace, or empty when there is no file. */
    Optional<String> read() throws IOException {
        try {
            return Optional.of(Files.readString(path, StandardCharsets.UTF_8).strip());
        } catch (NoSuchFileException missing) {
            return Optional.empty();
        }
    }

    /** Replaces the file's content with {@code token} and a newline, atomically, creating directories as needed. */
    void write(String token) throws IOException {
        Path directory = path.toAbsolutePath().getParent();
        Files.createDirectories(directory);
        FileAttribute<Set<PosixFilePermission>> ownerOnly = PosixFilePermissions.asFileAttribute(OWNER_ONLY);
        Path temporary = Files.createTempFile(directory, "." + path.getFileName() + "-", ".tmp", ownerOnly);
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap((token + "\n").getBytes(StandardCharsets.UTF_8)));
                channel.force(true);
            }
            Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
