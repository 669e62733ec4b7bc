package dev.gantry.server.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** {@link BlobStoreContract} on files under a directory, as under {@code $GANTRY_HOME}. */
class FileBlobStoreIT extends BlobStoreContract {
    @TempDir
    Path root;
    FileBlobStore store;

    @BeforeEach
    void open() {
        store = new FileBlobStore(root);
    }

    @Override
    BlobStore store() {
        return store;
    }

    /** Regular files, temporary ones included: a failed write must leave none behind. */
    @Override
    List<String> names() throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).map(f -> root.relativize(f).toString()).sorted().toList();
        }
    }
}
