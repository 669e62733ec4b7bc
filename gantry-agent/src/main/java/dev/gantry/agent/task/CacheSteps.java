package dev.gantry.agent.task;

import dev.gantry.agent.protocol.CacheHit;
import dev.gantry.config.plan.Step;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * {@code save_cache} and {@code restore_cache}. Paths are stored so that they restore into the next task's home: a
 * path inside the sandbox's home (which holds the default working directory {@code ~/project}) is stored as
 * {@code home/<path relative to HOME>} and restored under the next task's home, whatever its user's home is; any
 * other absolute path is stored as {@code root/<absolute path>} and restored at the same absolute place. Relative
 * paths are relative to the working directory. Files are copied out of the sandbox to be archived on the host, and
 * restored by extracting on the host and copying in.
 */
final class CacheSteps {
    static final String HOME_PREFIX = "home";
    static final String ROOT_PREFIX = "root";

    private CacheSteps() {
    }

    static StepResult save(StepContext ctx, Step.SaveCache step) throws IOException, InterruptedException {
        String key;
        try {
            key = CacheKeyTemplate.render(step.key(), new TaskKeyValues(ctx));
        } catch (IllegalArgumentException e) {
            ctx.log().line("Cannot make the cache key: " + e.getMessage());
            return StepResult.FAILED;
        }
        Optional<CacheHit> existing = ctx.server().findCache(ctx.task(), List.of(key));
        if (existing.isPresent() && existing.get().key().equals(key)) {
            ctx.log().line("Skipping cache generation, cache already exists for key: " + key);
            return StepResult.SUCCESS;
        }
        List<Archives.Root> roots = new ArrayList<>();
        for (String configPath : step.paths()) {
            Path path = ctx.path(configPath);
            Optional<Path> copy = ctx.sandbox().read(path, ctx.dir().newStaging());
            if (copy.isEmpty()) {
                ctx.log().line("Skipping " + configPath + ": it does not exist");
                continue;
            }
            roots.add(new Archives.Root(copy.get(), entryName(ctx.sandbox().home(), path)));
        }
        if (roots.isEmpty()) {
            ctx.log().line("None of the paths exist; no cache saved for key " + key);
            return StepResult.SUCCESS;
        }
        Path archive = Files.createTempFile(ctx.dir().tmp(), "cache-", ".tar.gz");
        try {
            int entries = Archives.create(archive, roots);
            if (ctx.server().uploadCache(ctx.task(), key, archive)) {
                ctx.log().line("Stored cache " + key + " (" + entries + " entries, " + Files.size(archive) + " bytes)");
            } else {
                ctx.log().line("Cache key " + key + " exists, kept the stored one.");
            }
        } finally {
            Files.deleteIfExists(archive);
        }
        return StepResult.SUCCESS;
    }

    static StepResult restore(StepContext ctx, Step.RestoreCache step) throws IOException, InterruptedException {
        List<String> keys = new ArrayList<>();
        try {
            TaskKeyValues values = new TaskKeyValues(ctx);
            for (String template : step.keys()) {
                keys.add(CacheKeyTemplate.render(template, values));
            }
        } catch (IllegalArgumentException e) {
            ctx.log().line("Cannot make the cache key: " + e.getMessage());
            return StepResult.FAILED;
        }
        Optional<CacheHit> hit = ctx.server().findCache(ctx.task(), keys);
        if (hit.isEmpty()) {
            ctx.log().line("No cache found for keys: " + String.join(", ", keys));
            return StepResult.SUCCESS;
        }
        String key = hit.get().key();
        ctx.log().line("Found a cache from key " + key + " (" + hit.get().size() + " bytes)");
        Path archive = Files.createTempFile(ctx.dir().tmp(), "restore-", ".tar.gz");
        try {
            ctx.server().downloadCache(ctx.task(), key, archive);
            Path staged = ctx.dir().newStaging();
            int entries = Archives.extract(archive, name -> placement(staged, name));
            Path home = staged.resolve(HOME_PREFIX);
            if (Files.exists(home)) {
                ctx.sandbox().write(home, ctx.sandbox().home());
            }
            Path root = staged.resolve(ROOT_PREFIX);
            if (Files.exists(root)) {
                ctx.sandbox().write(root, Path.of("/"));
            }
            ctx.log().line("Restored " + entries + " entries");
        } finally {
            Files.deleteIfExists(archive);
        }
        return StepResult.SUCCESS;
    }

    /** The archive name for {@code path}: under {@code home/} when inside HOME, else {@code root/} and its path. */
    static String entryName(Path home, Path path) {
        if (path.startsWith(home)) {
            String relative = home.relativize(path).toString();
            return relative.isEmpty() ? HOME_PREFIX : HOME_PREFIX + "/" + relative;
        }
        return ROOT_PREFIX + path.toAbsolutePath();
    }

    /**
     * Where an entry is staged on the host before it is copied in: {@code home/…} and {@code root/…} under
     * {@code staged}, each kept inside its own prefix; null for names this agent did not write.
     */
    static Archives.Placement placement(Path staged, String name) {
        for (String prefix : List.of(HOME_PREFIX, ROOT_PREFIX)) {
            if (name.equals(prefix) || name.startsWith(prefix + "/")) {
                return new Archives.Placement(staged.resolve(name), staged.resolve(prefix));
            }
        }
        return null;
    }

    /** Template values from the running task. */
    private record TaskKeyValues(StepContext ctx) implements CacheKeyTemplate.Values {
        @Override
        public String branch() {
            return ctx.assignment().pipeline().branch();
        }

        @Override
        public String revision() {
            return ctx.assignment().pipeline().revision();
        }

        @Override
        public long buildNum() {
            return ctx.assignment().job().number();
        }

        @Override
        public String environment(String name) {
            return ctx.environment().get(name);
        }

        @Override
        public long epochSeconds() {
            return System.currentTimeMillis() / 1000;
        }

        @Override
        public String arch() {
            return CacheKeyTemplate.arch(System.getProperty("os.name"), System.getProperty("os.arch"));
        }

        @Override
        public String checksum(String file) {
            try {
                Path copy = ctx.sandbox().read(ctx.path(file), ctx.dir().newStaging())
                        .orElseThrow(() -> new IllegalArgumentException("cannot read '" + file
                                + "' for its checksum: it does not exist"));
                return sha256Base64(copy, file);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read '" + file + "' for its checksum: " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalArgumentException("interrupted while reading '" + file + "' for its checksum", e);
            }
        }
    }

    static String sha256Base64(Path path, String shownAs) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(path), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read '" + shownAs + "' for its checksum: " + e, e);
        }
        return Base64.getEncoder().encodeToString(digest.digest());
    }
}
