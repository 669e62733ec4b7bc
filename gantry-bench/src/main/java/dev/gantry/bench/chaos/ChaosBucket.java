package dev.gantry.bench.chaos;

import dev.gantry.bench.GantryProcesses;
import dev.gantry.server.storage.S3Settings;
import java.net.URI;
import java.util.Map;
import java.util.Properties;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.TransientApiMetadata;

/**
 * The servers' shared blob store: S3Proxy on 127.0.0.1 over jclouds' in-memory store, with one bucket and SigV4
 * authentication, in the driver's JVM, as the server's {@code SharedStorageIT} runs it. Not a fault target.
 */
final class ChaosBucket implements AutoCloseable {
    private static final String BUCKET = "gantry-chaos";
    private static final String ACCESS_KEY = "chaos-access";
    private static final String SECRET_KEY = "chaos-secret";

    private final BlobStoreContext context;
    private final S3Proxy proxy;
    private final URI endpoint;

    private ChaosBucket(BlobStoreContext context, S3Proxy proxy, URI endpoint) {
        this.context = context;
        this.proxy = proxy;
        this.endpoint = endpoint;
    }

    static ChaosBucket start() throws Exception {
        // By its metadata, not its name: a lookup by name loads every provider S3Proxy lists, clouds' SDKs included.
        BlobStoreContext context = ContextBuilder.newBuilder(new TransientApiMetadata())
                .credentials("identity", "credential").overrides(new Properties()).build(BlobStoreContext.class);
        context.getBlobStore().createContainerInLocation(null, BUCKET);
        URI endpoint = URI.create("http://127.0.0.1:" + GantryProcesses.freePort());
        S3Proxy proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(endpoint)
                .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        while (!AbstractLifeCycle.STARTED.equals(proxy.getState())) {
            Thread.sleep(5);
        }
        return new ChaosBucket(context, proxy, endpoint);
    }

    /** The server settings that put blobs in this bucket under {@code prefix}. */
    Map<String, String> environment(String prefix) {
        return Map.of(S3Settings.BLOB_STORE_VARIABLE, "s3://" + BUCKET + "/" + prefix,
                S3Settings.ENDPOINT_VARIABLE, endpoint.toString(), S3Settings.ACCESS_KEY_VARIABLE, ACCESS_KEY,
                S3Settings.SECRET_KEY_VARIABLE, SECRET_KEY);
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
