package dev.gantry.server.storage;

import dev.gantry.testkit.LocalS3;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link LocalS3} for a test class, with the settings that point a server at it. Register it in a static field; it
 * starts before the class's tests and stops after them.
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {
    public static final String BUCKET = LocalS3.BUCKET;

    private LocalS3 s3;

    @Override
    public void beforeAll(ExtensionContext extension) throws Exception {
        s3 = LocalS3.start();
    }

    @Override
    public void afterAll(ExtensionContext extension) throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    /** Stops answering, as a bucket whose endpoint went away; what it holds is kept for {@link #start()}. */
    public void stop() throws Exception {
        s3.stopAnswering();
    }

    /** Answers again, on the same port. */
    public void start() throws Exception {
        s3.answerAgain();
    }

    /** Where the server listens, e.g. {@code http://127.0.0.1:41234}. */
    public URI endpoint() {
        return s3.endpoint();
    }

    /** Settings for {@link #BUCKET} under {@code prefix} on this server: path-style, the test key, no presigning. */
    public S3Settings settings(String prefix) {
        return new S3Settings(BUCKET, prefix, s3.endpoint(), S3Settings.DEFAULT_COMPATIBLE_REGION, true,
                new S3Settings.Keys(LocalS3.ACCESS_KEY, LocalS3.SECRET_KEY, null), false);
    }

    public List<String> keys(String prefix) {
        return s3.keys(prefix);
    }

    public void clear() {
        s3.clear();
    }

    public int unfinishedUploads() {
        return s3.unfinishedUploads();
    }
}
