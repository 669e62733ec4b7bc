package dev.gantry.db;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs PostgreSQL's programs on a cluster, their output appended to the cluster's log: {@code initdb},
 * {@code postgres --single} and {@code pg_ctl start}/{@code stop}. Each must finish within its timeout. Stateless.
 */
final class PostgresPrograms {
    private static final int LOG_TAIL_LINES = 30;

    private PostgresPrograms() {
    }

    /**
     * Creates a cluster in {@code files.dataDirectory()} whose superuser {@link EmbeddedDatabase#SUPERUSER} has the
     * password in {@code files.passwordFile()}, so it never trusts anyone, not even between initdb and the first start.
     */
    static void initdb(ClusterFiles files, Duration timeout) {
        run("initdb", List.of("-D", files.dataDirectory().toString(), "-U", EmbeddedDatabase.SUPERUSER,
                "-E", "UTF-8", "--locale=C", "--auth=scram-sha-256",
                "--pwfile=" + files.passwordFile()), null, files, timeout);
    }

    /**
     * Sets the superuser's password with the server stopped, in single-user mode: no connection can be made
     * meanwhile, and nothing needs to trust anyone to let us in first.
     *
     * @param scramVerifier the password's SCRAM-SHA-256 verifier, never the password itself, so that not even a
     *                      failed statement logs it
     */
    static void setSuperuserPassword(ClusterFiles files, String scramVerifier, Duration timeout) {
        if (!scramVerifier.matches("SCRAM-SHA-256\\$[A-Za-z0-9+/=:$]+")) {
            throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier");
        }
        long logLength = logLength(files.logFile());
        run("postgres", List.of("--single", "-D", files.dataDirectory().toString(),
                        "-c", "log_min_error_statement=panic", "postgres"),
                "ALTER ROLE " + EmbeddedDatabase.SUPERUSER + " PASSWORD '" + scramVerifier + "'\n", files, timeout);
        // Single-user mode reports a failed statement in its output but still exits 0.
        List<String> errors = logSince(files.logFile(), logLength).lines()
                .filter(line -> line.contains("ERROR:") || line.contains("FATAL:") || line.contains("PANIC:"))
                .toList();
        if (!errors.isEmpty()) {
            throw new DatabaseStartException("Setting the superuser's password of the PostgreSQL cluster in "
                    + files.dataDirectory() + " failed:\n" + String.join("\n", errors));
        }
    }

    /** Starts the server with {@code serverOptions} and waits until it accepts connections. */
    static void start(ClusterFiles files, List<String> serverOptions, Duration timeout) {
        run("pg_ctl", List.of("-D", files.dataDirectory().toString(), "-w", "-t", seconds(timeout),
                "-o", shellWords(serverOptions), "start"), null, files, timeout.plusSeconds(5));
    }

    /** Stops the server with a fast shutdown: sessions are cancelled, everything committed stays. */
    static void stop(ClusterFiles files, Duration timeout) {
        run("pg_ctl", List.of("-D", files.dataDirectory().toString(), "stop", "-m", "fast", "-w", "-t",
                seconds(timeout)), null, files, timeout.plusSeconds(5));
    }

    /** The last lines of the cluster's log, introduced by a line naming it; empty if there are none. */
    static String logTail(Path logFile) {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            List<String> tail = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
            return tail.isEmpty() ? "" : "\nLast lines of " + logFile + ":\n" + String.join("\n", tail);
        } catch (IOException | RuntimeException unreadable) {
            return " (its log " + logFile + " cannot be read: " + unreadable + ")";
        }
    }

    /**
     * Runs a program, {@code input} (if any) on its standard input, output appended to the log.
     *
     * @throws DatabaseStartException if it cannot run, fails, or does not finish in time (it is killed then)
     */
    private static void run(String program, List<String> arguments, String input, ClusterFiles files,
                            Duration timeout) {
        List<String> command = PostgresBinaries.command(program, arguments);
        Path log = files.logFile();
        try {
            Process process = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectErrorStream(true)
                    .start();
            try (OutputStream stdin = process.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new DatabaseStartException(program + " on " + files.dataDirectory() + " did not finish within "
                        + SettingValues.format(timeout) + logTail(log));
            }
            if (process.exitValue() != 0) {
                throw new DatabaseStartException(program + " on " + files.dataDirectory() + " failed (exit code "
                        + process.exitValue() + ")" + logTail(log));
            }
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot run " + command.getFirst() + ": " + failure, failure);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new DatabaseStartException("Interrupted while waiting for " + program + " on "
                    + files.dataDirectory(), interrupted);
        }
    }

    /**
     * pg_ctl hands its {@code -o} text to {@code sh -c}: each word single-quoted, a quote inside as {@code '\''}.
     */
    static String shellWords(List<String> words) {
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            quoted.add("'" + word.replace("'", "'\\''") + "'");
        }
        return String.join(" ", quoted);
    }

    private static String seconds(Duration timeout) {
        return Long.toString(Math.max(1, (timeout.toMillis() + 999) / 1000));
    }

    private static long logLength(Path logFile) {
        try {
            return Files.exists(logFile) ? Files.size(logFile) : 0;
        } catch (IOException unreadable) {
            return 0;
        }
    }

    private static String logSince(Path logFile, long offset) {
        try (SeekableByteChannel channel = FileChannel.open(logFile, StandardOpenOption.READ)) {
            channel.position(offset);
            return new String(Channels.newInputStream(channel).readAllBytes(),
                    StandardCharsets.UTF_8);
        } catch (IOException failure) {
            throw new DatabaseStartException("Cannot read " + logFile + " to check that the password was set: "
                    + failure, failure);
        }
    }
}
