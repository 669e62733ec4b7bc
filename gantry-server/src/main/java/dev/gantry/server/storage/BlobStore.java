package dev.gantry.server.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Optional;

/**
 * Immutable-once-written byte blobs by name: caches, workspace layers, artifacts. A blob becomes visible only
 * complete: a write goes to a temporary place first and is published in one step, so a reader (and the index row a
 * caller inserts after the write returns) never sees half a blob. Two implementations: {@link FileBlobStore} (files
 * under {@code $GANTRY_HOME}, one server) and {@link S3BlobStore} (a bucket several servers share). Implementations
 * are thread-safe; a failure of the storage underneath is an {@link IOException}.
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

    /** The size of the blob {@code name}, or empty when there is none; reads none of its bytes. */
    Optional<Long> size(BlobName name) throws IOException;

    /**
     * A URL from which a client can download the blob {@code name} without the server, answering with
     * {@code contentType} and {@code contentDisposition}, valid for a few minutes; empty when this store serves
     * downloads only through the server (the default). The blob's existence is not checked.
     */
    default Optional<URI> directDownload(BlobName name, String contentType, String contentDisposition)
            throws IOException {
        return Optional.empty();
    }

    /**
     * Deletes the blob {@code name}; a reader that has it open keeps reading what it opened.
     *
     * @return false when there was none
     */
    boolean delete(BlobName name) throws IOException;
}
