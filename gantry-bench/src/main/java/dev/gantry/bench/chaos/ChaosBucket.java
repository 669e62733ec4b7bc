package dev.gantry.bench.chaos;

import dev.gantry.server.storage.S3Settings;
import dev.gantry.testkit.LocalS3;
import java.util.Map;

/**
 * The servers' shared blob store: the test kit's {@link LocalS3} (S3Proxy on 127.0.0.1) in the driver's JVM, as the
 * server's {@code SharedStorageIT} runs it. Not a fault target.
 */
final class ChaosBucket implements AutoCloseable {
    private final LocalS3 s3;

    private ChaosBucket(LocalS3 s3) {
        this.s3 = s3;
    }

    static ChaosBucket start() throws Exception {
        return new ChaosBucket(LocalS3.start());
    }

    /** The server settings that put blobs in this bucket under {@code prefix}. */
    Map<String, String> environment(String prefix) {
        return Map.of(S3Settings.BLOB_STORE_VARIABLE, "s3://" + LocalS3.BUCKET + "/" + prefix,
                S3Settings.ENDPOINT_VARIABLE, s3.endpoint().toString(),
                S3Settings.ACCESS_KEY_VARIABLE, LocalS3.ACCESS_KEY, S3Settings.SECRET_KEY_VARIABLE, LocalS3.SECRET_KEY);
    }

    @Override
    public void close() throws Exception {
        s3.close();
    }
}
