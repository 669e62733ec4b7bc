package dev.gantry.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The bundled example project (the repository's {@code examples/demo}, packed into the jar as
 * {@code example-project/}): on first use it becomes a git repository with one commit under
 * {@code $GANTRY_HOME/example-project}; later uses find it there, with whatever the user committed since.
 */
final class ExampleProject {
    static final String RESOURCE = "example-project";
    static final String NAME = "greeter";

    private ExampleProject() {
    }

    /** The example's repository under {@code home}, made now if it is not there yet. */
    static Path ensure(Path home) {
        Path repository = home.resolve(RESOURCE);
        if (Files.isDirectory(repository.resolve(".git"))) {
            return repository;
        }
        try {
            Path staging = Files.createTempDirectory(home, RESOURCE + ".");
            copyBundle(staging);
            Git.run(staging, "init", "-q", "-b", "main");
            Git.run(staging, "add", "-A");
            Git.run(staging, "commit", "-q", "-m", "The greeter example: build, a matrix of tests, package");
            // Renamed into place only once complete, so an interrupted first start leaves no half-made repository.
            Files.move(staging, repository);
            return repository;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the example project under " + home, e);
        }
    }

    private static void copyBundle(Path target) throws IOException {
        URL root = ExampleProject.class.getClassLoader().getResource(RESOURCE);
        if (root == null) {
            throw new IllegalStateException("the example project is missing from the jar; rebuild it with mvn package");
        }
        URI uri;
        try {
            uri = root.toURI();
        } catch (URISyntaxException e) {
            throw new IllegalStateException("bad resource URL " + root, e);
        }
        if (uri.getScheme().equals("jar")) {
            try (FileSystem jar = FileSystems.newFileSystem(uri, Map.of())) {
                copyTree(jar.provider().getPath(uri), target);
            }
        } else {
            copyTree(Path.of(uri), target);
        }
    }

    private static void copyTree(Path source, Path target) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(source)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            Path to = target.resolve(source.relativize(file).toString());
            Files.createDirectories(to.getParent());
            Files.copy(file, to);
            // Resources lose their file modes; scripts are the files that start with #!.
            byte[] start = Files.readAllBytes(to);
            if (start.length > 1 && start[0] == '#' && start[1] == '!') {
                to.toFile().setExecutable(true);
            }
        }
    }
}
