package dev.gantry.db;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * The embedded server's superuser password, in a file only its owner may read ({@code <dataDirectory>.password},
 * 0600). The first start writes a random one: 256 bits, URL-safe base64, so it needs no quoting in a URL or a shell.
 * Deleting the file makes the next start set a new password. Stateless.
 */
final class PasswordFile {
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final int PASSWORD_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A password, and whether this start made it (so the cluster does not know it yet). Never printed. */
    record Password(String value, boolean created) {
        @Override
        public String toString() {
            return "Password[****, created=" + created + "]";
        }
    }

    private PasswordFile() {
    }

    /**
     * The password in {@code file}, or a new one written there (atomically, 0600) if there is no file.
     *
     * @throws DatabaseStartException if the file may be read by others, is empty, or cannot be read or written
     */
    static Password readOrCreate(Path file) {
        try {
            return new Password(read(file), false);
        } catch (NoSuchFileException missing) {
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(randomBytes());
            write(file, password);
            return new Password(password, true);
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot read the embedded PostgreSQL's password file " + file + ": "
                    + failure, failure);
        }
    }

    /**
     * The password in {@code file}.
     *
     * @throws NoSuchFileException     if there is no file
     * @throws DatabaseStartException if the file may be read by others, or is empty
     */
    static String read(Path file) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (!OWNER_ONLY.containsAll(mode)) {
            throw new DatabaseStartException("The embedded PostgreSQL's password file " + file + " may be read by "
                    + "others (mode " + PosixFilePermissions.toString(mode) + "); make it the owner's alone (chmod 600 "
                    + file + "), or delete it to have the next start set a new password.");
        }
        String password = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (password.isEmpty()) {
            throw new DatabaseStartException("The embedded PostgreSQL's password file " + file + " is empty; delete it "
                    + "to have the next start set a new password.");
        }
        return password;
    }

    private static void write(Path file, String password) {
        try {
            Files.createDirectories(file.getParent());
            Path temporary = Files.createTempFile(file.getParent(), "." + file.getFileName() + "-", ".tmp",
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            try {
                try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                    channel.write(ByteBuffer.wrap((password + "\n").getBytes(StandardCharsets.UTF_8)));
                    channel.force(true);
                }
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot write the embedded PostgreSQL's password file " + file + ": "
                    + failure, failure);
        }
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[PASSWORD_BYTES];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
