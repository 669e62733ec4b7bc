package dev.gantry.server.secret;

import dev.gantry.server.ServerStartException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The master keys, which wrap the data keys that encrypt secrets (envelope encryption). They live in one file,
 * {@code GANTRY_MASTER_KEY_FILE} (default {@code $GANTRY_HOME/master-key}), never in the database: a copy of the
 * database alone reveals no secret. One key a line, {@code ID BASE64}, 256 bits; the first is the primary, which
 * wraps new data keys; the others only unwrap data keys not yet re-wrapped. Made with one key, mode 0600, on the first
 * start; a file others may read stops the start. Thread-safe: {@link #find} reads the file again for an id it does
 * not know, so that a rotation done through another server is picked up without a restart.
 */
public final class MasterKeys {
    /** The environment variable naming the file. */
    public static final String FILE_VARIABLE = "GANTRY_MASTER_KEY_FILE";
    static final int KEY_BYTES = 32;
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private volatile Map<String, SecretKey> keys;

    private MasterKeys(Path file, Map<String, SecretKey> keys) {
        this.file = file;
        this.keys = keys;
    }

    /**
     * The keys of {@code file}, made with one new key if it does not exist.
     *
     * @throws ServerStartException when it cannot be read or made, others may read it, or a line is not a key
     */
    public static MasterKeys open(Path file) {
        try {
            if (Files.notExists(file)) {
                Files.createDirectories(file.toAbsolutePath().getParent());
                write(file, List.of(newKey()));
            }
            return new MasterKeys(file, read(file));
        } catch (IOException e) {
            throw new ServerStartException("Cannot read or make the master key file " + file + ": " + e, e);
        }
    }

    /** The file's path, for messages. */
    public Path file() {
        return file;
    }

    /** The id of the key new data keys are wrapped with. */
    String primaryId() {
        return keys.keySet().iterator().next();
    }

    SecretKey primary() {
        return keys.values().iterator().next();
    }

    /** The key {@code id}, reading the file again if this server does not know it yet. */
    Optional<SecretKey> find(String id) {
        SecretKey key = keys.get(id);
        if (key == null) {
            reload();
            key = keys.get(id);
        }
        return Optional.ofNullable(key);
    }

    /**
     * Makes a new primary key and writes the file with it first, the others after it; returns its id. The file is
     * replaced atomically, so a crash leaves the old file or the new one.
     */
    synchronized String addPrimary() {
        List<Map.Entry<String, SecretKey>> all = new ArrayList<>();
        Map.Entry<String, SecretKey> fresh = newKey();
        all.add(fresh);
        all.addAll(keys.entrySet());
        writeAndUse(all);
        return fresh.getKey();
    }

    /** Drops every key but {@code keep} from the file, once no data key is wrapped with them any more. */
    synchronized void retainOnly(Set<String> keep) {
        writeAndUse(keys.entrySet().stream().filter(e -> keep.contains(e.getKey())).toList());
    }

    /** The ids in the file, the primary first. */
    List<String> ids() {
        return List.copyOf(keys.keySet());
    }

    private void writeAndUse(List<Map.Entry<String, SecretKey>> entries) {
        try {
            write(file, entries);
            keys = read(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the master key file " + file, e);
        }
    }

    private synchronized void reload() {
        try {
            keys = read(file);
        } catch (IOException | ServerStartException e) {
            // keep the keys known: a file being replaced or broken must not take away what already worked
        }
    }

    private static Map.Entry<String, SecretKey> newKey() {
        byte[] bytes = new byte[KEY_BYTES];
        RANDOM.nextBytes(bytes);
        byte[] id = new byte[6];
        RANDOM.nextBytes(id);
        return Map.entry("mk-" + HexFormat.of().formatHex(id), new SecretKeySpec(bytes, "AES"));
    }

    private static void write(Path file, List<Map.Entry<String, SecretKey>> entries) throws IOException {
        StringBuilder text = new StringBuilder("""
                # Gantry's master keys: ID BASE64, the first wraps new data keys. Keep this file 0600 and backed up
                # apart from the database: without it the secrets stored there cannot be read.
                """);
        for (Map.Entry<String, SecretKey> entry : entries) {
            text.append(entry.getKey()).append(' ')
                    .append(Base64.getEncoder().encodeToString(entry.getValue().getEncoded())).append('\n');
        }
        Path temporary = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        Files.createFile(temporary, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        Files.writeString(temporary, text, StandardCharsets.US_ASCII);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Map<String, SecretKey> read(Path file) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        if (!OWNER_ONLY.containsAll(mode)) {
            throw new ServerStartException("The master key file " + file + " may be read by others (mode "
                    + PosixFilePermissions.toString(mode) + "); make it the owner's alone: chmod 600 " + file, null);
        }
        Map<String, SecretKey> keys = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            byte[] key = parts.length == 2 ? decode(parts[1]) : null;
            if (key == null || key.length != KEY_BYTES || !parts[0].matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new ServerStartException("The master key file " + file + ", line " + (i + 1)
                        + ", is not 'ID BASE64' with a 256-bit key", null);
            }
            keys.put(parts[0], new SecretKeySpec(key, "AES"));
        }
        if (keys.isEmpty()) {
            throw new ServerStartException("The master key file " + file + " holds no key", null);
        }
        return keys;
    }

    private static byte[] decode(String base64) {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }
}
