package dev.gantry.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A git repository made by a test, with a CircleCI config from the test resources. */
final class TestRepository {
    private TestRepository() {
    }

    /**
     * Creates a repository in {@code dir} on branch main whose {@code .circleci/config.yml} is the resource
     * {@code config} with {@code @TRACE@} replaced by {@code trace}; returns the commit.
     */
    static String create(Path dir, String config, Path trace) {
        try (InputStream in = TestRepository.class.getResourceAsStream(config)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + config);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@TRACE@", trace.toString());
            Files.createDirectories(dir.resolve(".circleci"));
            Files.writeString(dir.resolve(".circleci/config.yml"), text);
            Files.writeString(dir.resolve("deps.txt"), "left-pad 1.3.0\n");
            Git.run(dir, "init", "-q", "-b", "main");
            Git.run(dir, "add", "-A");
            Git.run(dir, "commit", "-q", "-m", "end-to-end test project");
            return Git.run(dir, "rev-parse", "HEAD");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
