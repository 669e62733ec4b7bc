package dev.gantry.server.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link BlobStore} of files under a root directory: blob {@code a/b/c} is the file {@code root/a/b/c}. A write goes
 * to a hidden temporary file beside its target, is flushed, and is then renamed over the target ({@link #put}) or
 * hard-linked to it ({@link #putIfAbsent}: {@code link(2)} fails when the target exists, so the check and the publish
 * are one step). Thread-safe; several processes may share the root.
 */
public final class FileBlobStore implements BlobStore {
    private final Path root;

    public FileBlobStore(Path root) {
        this.root = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
    }

    @Override
    public long put(BlobName name, InputStream content) throws IOException {
        Path target = resolve(name);
        Path temporary = write(target, content);
        try {
            long size = Files.size(temporary);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return size;
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    @Override
    public Optional<Long> putIfAbsent(BlobName name, InputStream content) throws IOException {
        Path target = resolve(name);
        if (Files.exists(target)) {
            return Optional.empty();
        }
        Path temporary = write(target, content);
        try {
            long size = Files.size(temporary);
            Files.createLink(target, temporary);
            return Optional.of(size);
        } catch (FileAlreadyExistsException taken) {
            return Optional.empty();
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    @Override
    public Optional<Blob> open(BlobName name) throws IOException {
        Path file = resolve(name);
        try {
            InputStream in = Files.newInputStream(file);
            return Optional.of(new Blob(in, Files.size(file)));
        } catch (NoSuchFileException missing) {
            return Optional.empty();
        }
    }

    @Override
    public Optional<Long> size(BlobName name) throws IOException {
        Path file = resolve(name);
        try {
            // A directory is where other blobs' names go on, not a blob.
            return Files.isDirectory(file) ? Optional.empty() : Optional.of(Files.size(file));
        } catch (NoSuchFileException missing) {
            return Optional.empty();
        }
    }

    /** Deletes the file, then its directories that this leaves empty, up to the first segment's. */
    @Override
    public boolean delete(BlobName name) throws IOException {
        Path file = resolve(name);
        if (!Files.deleteIfExists(file)) {
            return false;
        }
        Path keep = root.resolve(name.segments().getFirst());
        for (Path dir = file.getParent(); dir.startsWith(keep) && !dir.equals(keep); dir = dir.getParent()) {
            try {
                Files.delete(dir);
            } catch (DirectoryNotEmptyException | NoSuchFileException inUse) {
                break;
            }
        }
        return true;
    }

    private Path write(Path target, InputStream content) throws IOException {
        Path temporary = createTemporary(target);
        try {
            try (OutputStream out = Files.newOutputStream(temporary)) {
                content.transferTo(out);
            }
            return temporary;
        } catch (IOException | RuntimeException failure) {
            Files.deleteIfExists(temporary);
            throw failure;
        }
    }

    /** A new empty file beside {@code target}; once it exists, {@link #delete} cannot remove its directory. */
    private static Path createTemporary(Path target) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Files.createDirectories(target.getParent());
            try {
                return Files.createTempFile(target.getParent(), "." + target.getFileName() + "-", ".part");
            } catch (NoSuchFileException emptiedMeanwhile) {
                // delete() removed the directory, empty, between the two calls: make it again, once.
                if (attempt == 2) {
                    throw emptiedMeanwhile;
                }
            }
        }
    }

    private Path resolve(BlobName name) {
        Path file = root.resolve(name.toString()).normalize();
        // BlobName already refuses '..'; this is the second lock on the same door.
        if (!file.startsWith(root) || file.equals(root)) {
            throw new IllegalArgumentException("blob name " + name + " leaves the store's root");
        }
        return file;
    }
}
