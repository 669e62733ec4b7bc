package dev.gantry.config.orb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads published orbs from a local directory laid out as {@code DIR/<namespace>/<name>@<version>.yml}, one file per
 * orb version exactly as the registry publishes it. This is the compiler's only file access, and it happens only when
 * a config references a registry orb.
 */
public final class DirectoryOrbResolver implements OrbResolver {
    private final Path dir;

    public DirectoryOrbResolver(Path dir) {
        this.dir = dir;
    }

    @Override
    public Optional<OrbSource> resolve(String namespace, String name, String version) {
        Optional<String> found = OrbVersions.choose(available(namespace, name), version);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        String chosen = found.get();
        Path file = fileFor(namespace, name, chosen);
        try {
            return Optional.of(new OrbSource(file.toString(), chosen, Files.readString(file, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read orb " + file, e);
        }
    }

    @Override
    public List<String> available(String namespace, String name) {
        Path nsDir = dir.resolve(namespace);
        if (!validSegment(namespace) || !validSegment(name) || !Files.isDirectory(nsDir)) {
            return List.of();
        }
        List<String> versions = new ArrayList<>();
        String prefix = name + "@";
        try (DirectoryStream<Path> files = Files.newDirectoryStream(nsDir, prefix + "*.yml")) {
            for (Path f : files) {
                String fileName = f.getFileName().toString();
                versions.add(fileName.substring(prefix.length(), fileName.length() - ".yml".length()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list orb directory " + nsDir, e);
        }
        versions.sort(OrbVersions.ORDER);
        return versions;
    }

    @Override
    public String describe() {
        return "orb directory " + dir;
    }

    @Override
    public String missingHint(String namespace, String name, String version) {
        return "save its published source as " + fileFor(namespace, name, version);
    }

    private Path fileFor(String namespace, String name, String version) {
        return dir.resolve(namespace).resolve(name + "@" + version + ".yml");
    }

    /** Names come from configs; refuse anything that could walk out of the directory. */
    private static boolean validSegment(String s) {
        return !s.isEmpty() && s.matches("[A-Za-z0-9_.-]+") && !s.startsWith(".");
    }
}
