package dev.gantry.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real git repository in a test directory, written to with the git command line: commits, branches, tags. */
final class TestRepo {
    private final Path dir;

    private TestRepo(Path dir) {
        this.dir = dir;
    }

    /** A new repository in {@code dir} (created) on branch {@code main}, with no commits yet. */
    static TestRepo init(Path dir) {
        TestRepo repo = new TestRepo(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        repo.git("init", "--quiet", "--initial-branch=main");
        return repo;
    }

    Path dir() {
        return dir;
    }

    /** Writes {@code text} to {@code path} (made relative to the repository), and stages it. */
    TestRepo write(String path, String text) {
        try {
            Path file = dir.resolve(path);
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        git("add", "--", path);
        return this;
    }

    /** Removes {@code path} from the repository, staged. */
    TestRepo remove(String path) {
        git("rm", "--quiet", "--", path);
        return this;
    }

    /** Commits what is staged; returns the new commit's id. */
    String commit(String message) {
        git("commit", "--quiet", "--allow-empty", "-m", message);
        return head();
    }

    String head() {
        return git("rev-parse", "HEAD").strip();
    }

    /** An annotated tag on HEAD. */
    void tag(String name) {
        git("tag", "-a", "-m", "tag " + name, name);
    }

    void checkoutNewBranch(String name) {
        git("checkout", "--quiet", "-b", name);
    }

    void checkout(String name) {
        git("checkout", "--quiet", name);
    }

    /** Runs git in the repository; fails the test unless it exits 0; returns its stdout. */
    String git(String... args) {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=Gantry Test",
                "-c", "user.email=test@gantry.dev", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed: " + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
