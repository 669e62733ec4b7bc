package dev.gantry.server.storage;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real S3-compatible server for tests: S3Proxy on 127.0.0.1 (a free port) over jclouds' in-memory store, with one
 * bucket, {@link #BUCKET}, and SigV4 authentication with a fixed test key. Register it in a static field; it starts
 * before the class's tests and stops after them. Requests cross a socket and are signed and checked as Amazon S3's
 * are; what the store holds can be listed behind the API's back ({@link #keys}).
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {
    public static final String BUCKET = "gantry-blobs";
    static final String ACCESS_KEY = "gantry-test-access";
    static final String SECRET_KEY = "gantry-test-secret";

    private BlobStoreContext context;
    private S3Proxy proxy;
    private URI endpoint;

    @Override
    public void beforeAll(ExtensionContext extension) throws Exception {
        // By its metadata, not its name: a lookup by name loads every provider S3Proxy lists, clouds' SDKs included.
        context = ContextBuilder.newBuilder(new TransientApiMetadata()).credentials("identity", "credential")
                .overrides(new Properties()).build(BlobStoreContext.class);
        context.getBlobStore().createContainerInLocation(null, BUCKET);
        int port;
        // A fixed port, so that the server comes back where it was after stop().
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        endpoint = URI.create("http://127.0.0.1:" + port);
        proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(endpoint)
                .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY).build();
        start();
    }

    /** Stops answering, as a bucket whose endpoint went away; what it holds is kept for {@link #start()}. */
    public void stop() throws Exception {
        proxy.stop();
    }

    /** Answers again, on the same port. */
    public void start() throws Exception {
        proxy.start();
        while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            Thread.sleep(1);
        }
    }

    @Override
    public void afterAll(ExtensionContext extension) throws Exception {
        if (proxy != null) {
            proxy.stop();
        }
        if (context != null) {
            context.close();
        }
    }

    /** Where the server listens, e.g. {@code http://127.0.0.1:41234}. */
    public URI endpoint() {
        return endpoint;
    }

    /** Settings for {@link #BUCKET} under {@code prefix} on this server: path-style, the test key, no presigning. */
    public S3Settings settings(String prefix) {
        return new S3Settings(BUCKET, prefix, endpoint, S3Settings.DEFAULT_COMPATIBLE_REGION, true,
                new S3Settings.Keys(ACCESS_KEY, SECRET_KEY, null), false);
    }

    /** The environment variables that name this server and its bucket under {@code prefix}. */
    public java.util.Map<String, String> environment(String prefix) {
        return java.util.Map.of(S3Settings.BLOB_STORE_VARIABLE, "s3://" + BUCKET + "/" + prefix,
                S3Settings.ENDPOINT_VARIABLE, endpoint.toString(), S3Settings.ACCESS_KEY_VARIABLE, ACCESS_KEY,
                S3Settings.SECRET_KEY_VARIABLE, SECRET_KEY);
    }

    /** The keys of every object in the bucket under {@code prefix}, read from the store behind S3Proxy. */
    public List<String> keys(String prefix) {
        BlobStore store = context.getBlobStore();
        List<String> keys = new ArrayList<>();
        ListContainerOptions options = ListContainerOptions.Builder.prefix(prefix).recursive();
        PageSet<? extends StorageMetadata> page;
        do {
            page = store.list(BUCKET, options);
            page.forEach(metadata -> keys.add(metadata.getName()));
            if (page.getNextMarker() != null) {
                options = ListContainerOptions.Builder.prefix(prefix).recursive().afterMarker(page.getNextMarker());
            }
        } while (page.getNextMarker() != null);
        return keys;
    }

    /** Deletes every object in the bucket, behind the API's back. */
    public void clear() {
        context.getBlobStore().clearContainer(BUCKET);
    }

    /** How many multipart uploads were started in the bucket and neither completed nor aborted. */
    public int unfinishedUploads() {
        return context.getBlobStore().listMultipartUploads(BUCKET).size();
    }
}
