package dev.gantry.testkit;

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

/**
 * A real S3-compatible server for tests: S3Proxy on 127.0.0.1 (a free port) over jclouds' in-memory store, with one
 * bucket, {@link #BUCKET}, and SigV4 authentication with a fixed test key ({@link #ACCESS_KEY}, {@link #SECRET_KEY}).
 * Requests cross a socket and are signed and checked as Amazon S3's
 * are; what the store holds can be listed behind the API's back ({@link #keys}).
 */
public final class LocalS3 implements AutoCloseable {
    public static final String BUCKET = "gantry-blobs";
    public static final String ACCESS_KEY = "gantry-test-access";
    public static final String SECRET_KEY = "gantry-test-secret";

    private BlobStoreContext context;
    private S3Proxy proxy;
    private URI endpoint;

    private LocalS3() {
    }

    /** Starts a server on a free port of 127.0.0.1, with {@link #BUCKET} made and empty. */
    public static LocalS3 start() throws Exception {
        LocalS3 s3 = new LocalS3();
        s3.open();
        return s3;
    }

    private void open() throws Exception {
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
        answerAgain();
    }

    /** Stops answering, as a bucket whose endpoint went away; what it holds is kept for {@link #answerAgain()}. */
    public void stopAnswering() throws Exception {
        proxy.stop();
    }

    /** Answers again, on the same port. */
    public void answerAgain() throws Exception {
        proxy.start();
        while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            Thread.sleep(1);
        }
    }

    @Override
    public void close() throws Exception {
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
