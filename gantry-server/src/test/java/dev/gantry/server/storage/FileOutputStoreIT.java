package dev.gantry.server.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** {@link OutputStoreContract} on files, as under {@code $GANTRY_HOME/output}. */
class FileOutputStoreIT extends OutputStoreContract {
    @TempDir
    Path root;
    FileOutputStore store;

    @BeforeEach
    void open() {
        store = new FileOutputStore(root);
    }

    @Override
    OutputStore store() {
        return store;
    }
}
