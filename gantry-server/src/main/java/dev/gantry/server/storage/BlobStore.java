package dev.gantry.server.storage;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * Immutable-once-written byte blobs by name: caches, workspace layers, artifacts. A blob becomes visible only
 * complete: a write goes to a temporary place first and is published in one step, so a reader (and the index row a
 * caller inserts after the write returns) never sees half a blob. Implementations are thread-safe.
 */
public interface BlobStore {
    /** A blob to read: its bytes, which the caller closes, and its size. */
    record Blob(InputStream content, long size) {
    }

    /**
     * Writes {@code content} (read to its end, not closed) as {@code name}, replacing a blob of that name.
     *
     * @return the size written
     * @throws IOException if writing fails; nothing is published then. A {@link RuntimeException} from reading
     *                     {@code content} (an upload over its limit) also publishes nothing and propagates.
     */
    long put(BlobName name, InputStream content) throws IOException;

    /**
     * Writes {@code content} as {@code name} unless a blob of that name exists, deciding atomically, so of two
     * concurrent writers of one name exactly one wins.
     *
     * @return the size written, or empty when the name was taken (the content is then read but discarded)
     */
    Optional<Long> putIfAbsent(BlobName name, InputStream content) throws IOException;

    /** The blob {@code name}, or empty when there is none. */
    Optional<Blob> open(BlobName name) throws IOException;

    /**
     * Deletes the blob {@code name}; a reader that has it open keeps reading what it opened.
     *
     * @return false when there was none
     */
    boolean delete(BlobName name) throws IOException;
}
