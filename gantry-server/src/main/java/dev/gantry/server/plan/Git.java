package dev.gantry.server.plan;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs the {@code git} command line: never through a shell, with a timeout, stdout and stderr captured (each up to
 * {@link #MAX_OUTPUT} bytes), and an environment that keeps git from prompting or from using any transport other than
 * {@link #ALLOWED_PROTOCOLS}. Callers put {@code --} or {@code --end-of-options} before anything a user wrote.
 * Thread-safe; each call is one process.
 */
final class Git {
    /** Transports git may use: no {@code ext::} (which runs commands) and no other remote helpers. */
    static final String ALLOWED_PROTOCOLS = "file:git:http:https:ssh";
    /** The most bytes kept of a command's stdout (a config file larger than this is refused) or stderr. */
    static final int MAX_OUTPUT = 8 << 20;
    /** How much of stderr a failure message repeats: the end, where git says what went wrong. */
    static final int MAX_MESSAGE = 2000;

    private static final Pattern URL_CREDENTIALS = Pattern.compile("(://)[^/@\\s]+@");

    private final String executable;

    Git(String executable) {
        this.executable = Objects.requireNonNull(executable, "executable");
    }

    /** What a finished command left: its exit code and output. */
    record Result(int exitCode, byte[] stdout, String stderr) {
        boolean ok() {
            return exitCode == 0;
        }

        String text() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        /** The end of stderr, trimmed, with credentials in URLs masked: fit for an error message. */
        String error() {
            String text = stderr.strip();
            if (text.length() > MAX_MESSAGE) {
                text = "…" + text.substring(text.length() - MAX_MESSAGE);
            }
            return text.isEmpty() ? "git exited with " + exitCode : maskCredentials(text);
        }
    }

    /** A command that could not run to its end: git missing, the timeout passed, or output over the limit. */
    static final class GitFailure extends Exception {
        GitFailure(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code git args...} in {@code directory} (null: the server's working directory) and waits at most
     * {@code timeout}; a command still running then is killed with its children.
     *
     * @throws InterruptedException if the calling thread is interrupted (the process is killed first)
     */
    Result run(Path directory, Duration timeout, List<String> args) throws GitFailure, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        environment(builder.environment());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new GitFailure("cannot run '" + executable + "': " + e.getMessage());
        }
        closeInput(process);
        CompletableFuture<byte[]> stdout = drain(process.getInputStream());
        CompletableFuture<byte[]> stderr = drain(process.getErrorStream());
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                throw new GitFailure("git " + args.getFirst() + " did not finish within " + timeout.toSeconds()
                        + " s and was stopped");
            }
            byte[] out = stdout.get();
            byte[] err = stderr.get();
            if (out.length > MAX_OUTPUT) {
                throw new GitFailure("git " + args.getFirst() + " wrote more than " + MAX_OUTPUT + " bytes");
            }
            return new Result(process.exitValue(), out, new String(err, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            kill(process);
            throw e;
        } catch (ExecutionException e) {
            kill(process);
            throw new GitFailure("reading the output of git " + args.getFirst() + " failed: " + e.getCause());
        }
    }

    /** {@code text} with the user and password of any URL in it replaced by {@code ***}. */
    static String maskCredentials(String text) {
        return URL_CREDENTIALS.matcher(text).replaceAll("$1***@");
    }

    private static void environment(Map<String, String> env) {
        env.put("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS);
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_ASKPASS", "true");
        env.put("SSH_ASKPASS", "true");
        env.put("LC_ALL", "C");
        // ssh would ask for a passphrase or a host key on the server's terminal, if it has one.
        env.putIfAbsent("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }

    /** Reads a stream to its end on a virtual thread, keeping at most one byte more than the limit. */
    private static CompletableFuture<byte[]> drain(InputStream in) {
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Thread.ofVirtual().name("git-output").start(() -> {
            try (in) {
                ByteArrayOutputStream kept = new ByteArrayOutputStream();
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    int room = MAX_OUTPUT + 1 - kept.size();
                    kept.write(buffer, 0, Math.min(n, Math.max(room, 0)));
                }
                result.complete(kept.toByteArray());
            } catch (IOException e) {
                result.completeExceptionally(new UncheckedIOException(e));
            }
        });
        return result;
    }

    private static void closeInput(Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // Nothing is ever written to git's stdin; a pipe that will not close changes nothing.
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
