package dev.gantry.agent.executor;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;

/** Moving and deleting host directory trees. Stateless and thread-safe. */
public final class Trees {
    private Trees() {
    }

    /**
     * Moves every entry under {@code source} into {@code target} (created if missing), merging directories that
     * exist on both sides and replacing anything else. A whole subtree that {@code target} lacks moves by one rename.
     */
    public static void moveInto(Path source, Path target) throws IOException {
        Files.createDirectories(target);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(source)) {
            for (Path entry : entries) {
                Path to = target.resolve(entry.getFileName().toString());
                boolean bothDirectories = Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
                        && Files.isDirectory(to, LinkOption.NOFOLLOW_LINKS);
                if (bothDirectories) {
                    moveInto(entry, to);
                } else {
                    if (Files.isDirectory(to, LinkOption.NOFOLLOW_LINKS)) {
                        delete(to);
                    }
                    try {
                        Files.move(entry, to, StandardCopyOption.REPLACE_EXISTING);
                    } catch (DirectoryNotEmptyException otherFileSystem) {
                        moveInto(entry, to); // a directory cannot be renamed across file systems: entry by entry
                        Files.delete(entry);
                    }
                }
            }
        }
    }

    /** Deletes {@code root} and everything under it, making read-only directories writable first. */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                dir.toFile().setWritable(true, true);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
