package dev.gantry.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the {@code git} command line in a directory, never through a shell. */
final class Git {
    private static final long TIMEOUT_SECONDS = 60;

    private Git() {
    }

    /**
     * Runs {@code git ARGS} in {@code dir} and returns its standard output, stripped.
     *
     * @throws IllegalStateException with git's own message when it fails
     */
    static String run(Path dir, String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=Gantry", "-c",
                "user.email=gantry@localhost", "-c", "commit.gpgsign=false"));
        command.addAll(List.of(args));
        try {
            Process git = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            git.getOutputStream().close();
            byte[] output = git.getInputStream().readAllBytes();
            if (!git.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                git.destroyForcibly();
                throw new IllegalStateException("git " + String.join(" ", args) + " did not finish in "
                        + TIMEOUT_SECONDS + " s");
            }
            String text = new String(output, StandardCharsets.UTF_8).strip();
            if (git.exitValue() != 0) {
                throw new IllegalStateException("git " + String.join(" ", args) + " in " + dir + " failed: " + text);
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run git (is it installed?): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running git", e);
        }
    }
}
