package dev.gantry.server.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.jdbi.v3.core.Jdbi;

/**
 * The stores a server keeps jobs' bytes in, as its settings choose: without S3 settings, blobs and output are files
 * under {@code $GANTRY_HOME}, for one server per database; with them, blobs are in the bucket and output in the
 * database, so that any number of servers of that database share both (docs/storage.md). Open once at the start,
 * {@link #close()} once after everything that uses the stores has stopped. Thread-safe.
 */
public final class Storage implements AutoCloseable {
    private final BlobStore blobs;
    private final FileOutputStore files;
    private final String description;

    private Storage(BlobStore blobs, FileOutputStore files, String description) {
        this.blobs = blobs;
        this.files = files;
        this.description = description;
    }

    /**
     * The stores for {@code s3} (null: files under {@code home}).
     *
     * @throws IOException when the bucket cannot be used (missing, unreachable, refusing the credentials); the message
     *                     names it
     */
    public static Storage open(S3Settings s3, Path home) throws IOException {
        Objects.requireNonNull(home, "home");
        if (s3 == null) {
            return new Storage(new FileBlobStore(home), new FileOutputStore(home.resolve("output")),
                    "blobs and job output are files under " + home.toAbsolutePath() + " (one server per database)");
        }
        S3BlobStore bucket = S3BlobStore.open(s3);
        return new Storage(bucket, null, "blobs in " + s3.location() + " at "
                + (s3.endpoint() == null ? "Amazon S3" : s3.endpoint()) + " (region " + s3.region()
                + (s3.pathStyle() ? ", path-style" : "") + ", credentials "
                + (s3.keys() == null ? "from the AWS SDK's default chain" : "of " + s3.keys().accessKeyId())
                + ", artifact downloads " + (s3.presignedDownloads() ? "redirected to presigned URLs" : "through the "
                + "server") + "); job output in the database");
    }

    public BlobStore blobs() {
        return blobs;
    }

    /**
     * The output store. Kept in the database, it works on {@code jdbi}, so that the agent protocol's appends use its
     * own pool and the API's reads the API's; as files it is one store whatever {@code jdbi} is (its locks are
     * per instance).
     */
    public OutputStore output(Jdbi jdbi) {
        return files != null ? files : new DatabaseOutputStore(jdbi);
    }

    /** Where the bytes go, for the start's log line; names no secret. */
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        if (blobs instanceof S3BlobStore bucket) {
            bucket.close();
        }
    }
}
