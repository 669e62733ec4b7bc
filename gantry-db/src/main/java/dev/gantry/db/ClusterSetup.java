package dev.gantry.db;

import org.postgresql.util.PasswordUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;

/**
 * Makes a data directory a cluster that only its owner can use, before its server starts:
 * <ol>
 *   <li>the superuser's password: read from {@code <dataDirectory>.password}, or made and written there;
 *   <li>a new cluster is created with that password and never trusts anyone;
 *   <li>an existing cluster whose {@code pg_hba.conf} is not Gantry's (one an older Gantry made, which trusted every
 *       local connection), or whose password file was just made, gets the password set in single-user mode, then
 *       Gantry's {@code pg_hba.conf}. In that order: a start interrupted in between does both again, and the data
 *       stays as it was;
 *   <li>the socket directory is made 0700 and emptied of what a killed server left there (its lock file names a PID
 *       that may belong to another process by now, which would keep PostgreSQL from starting); the log is made 0600.
 * </ol>
 * Only for a caller that holds the data directory's lock, with no server running on it. Stateless.
 */
final class ClusterSetup {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterSetup.class);
    static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private ClusterSetup() {
    }

    /** @return the superuser's password */
    static String prepare(ClusterFiles files, Duration timeout) {
        ownerOnlyFile(files.logFile());
        PasswordFile.Password password = PasswordFile.readOrCreate(files.passwordFile());
        Path data = files.dataDirectory();
        if (!Files.exists(data.resolve("PG_VERSION"))) {
            PostgresPrograms.initdb(files, timeout);
            ClientAuthentication.write(data);
        } else if (password.created() || !ClientAuthentication.isCurrent(data)) {
            LOG.info("Setting a password for the PostgreSQL cluster in {} (kept in {}) and requiring it of every "
                    + "connection", data, files.passwordFile());
            String verifier = PasswordUtil.encodeScramSha256(password.value().toCharArray());
            PostgresPrograms.setSuperuserPassword(files, verifier, timeout);
            ClientAuthentication.write(data);
        }
        emptyOwnerOnlyDirectory(files.socketDirectory());
        return password.value();
    }

    /** Creates {@code file} empty if missing; either way leaves it readable by its owner only. */
    private static void ownerOnlyFile(Path file) {
        try {
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PasswordFile.OWNER_ONLY));
            }
            Files.setPosixFilePermissions(file, PasswordFile.OWNER_ONLY);
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot make " + file + " readable by its owner only: " + failure,
                    failure);
        }
    }

    private static void emptyOwnerOnlyDirectory(Path directory) {
        try {
            if (Files.isSymbolicLink(directory) || (Files.exists(directory, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS))) {
                throw new DatabaseStartException(directory + " is not a directory; the embedded PostgreSQL keeps "
                        + "its socket there. Move it aside.");
            }
            Files.createDirectories(directory);
            Files.setPosixFilePermissions(directory, OWNER_ONLY_DIRECTORY);
            try (DirectoryStream<Path> leftOvers = Files.newDirectoryStream(directory, ".s.PGSQL.*")) {
                for (Path leftOver : leftOvers) {
                    Files.deleteIfExists(leftOver);
                }
            }
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot make the socket directory " + directory + " its owner's alone: "
                    + failure, failure);
        }
    }
}
