package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BlobStoreContract} on a bucket of a real S3-compatible server (S3Proxy on 127.0.0.1), each test under a
 * prefix of its own; and what only S3 has: keys under the prefix, multipart uploads that never linger, presigned
 * downloads, and a bucket that does not answer refused at the start.
 */
class S3BlobStoreIT extends BlobStoreContract {
    @RegisterExtension
    static final S3ProxyExtension s3 = new S3ProxyExtension();

    String prefix;
    S3BlobStore store;

    @BeforeEach
    void open() throws IOException {
        prefix = "test-" + UUID.randomUUID();
        store = S3BlobStore.open(s3.settings(prefix), S3BlobStore.MIN_PART_SIZE); // the least data for 3 parts
    }

    @AfterEach
    void close() {
        store.close();
        assertThat(s3.unfinishedUploads()).as("multipart uploads completed or aborted").isZero();
    }

    @Override
    BlobStore store() {
        return store;
    }

    /** The keys under the test's prefix, without it. */
    @Override
    List<String> names() {
        return s3.keys(prefix + "/").stream().map(key -> key.substring(prefix.length() + 1)).sorted().toList();
    }

    /**
     * Not run here: S3Proxy decides {@code If-None-Match: *} by a look and then a put, so two writers that race past
     * the look both win; Amazon S3 and MinIO decide it atomically. What this store sends is checked by
     * {@link #the_bucket_refuses_a_conditional_write_of_a_taken_name}.
     */
    @Override
    void of_writers_racing_for_one_name_exactly_one_wins() {
    }

    @Test
    void the_bucket_refuses_a_conditional_write_of_a_taken_name() throws IOException {
        BlobName name = BlobName.of("caches", "p", "taken.tar.gz");
        store.put(name, text("first"));

        // S3Proxy answers 412 as soon as it has the headers and may close the connection before the client has
        // written the body: the SDK then reports a broken write (an IOException; the agent's retry finds the name
        // taken) instead of the 412. Either way, nothing was written over the first blob.
        try {
            assertThat(store.writeIfAbsent(name, text("second"))).isEmpty();
        } catch (IOException brokenWrite) {
            assertThat(brokenWrite).hasMessageContaining("taken.tar.gz");
        }

        assertThat(read(name)).isEqualTo("first");
    }

    @Test
    void blobs_are_objects_under_the_prefix_and_a_store_without_one_uses_the_bucket_root() throws IOException {
        store.put(BlobName.of("caches", "p", "k.tar.gz"), text("archive"));
        assertThat(s3.keys(prefix + "/")).containsExactly(prefix + "/caches/p/k.tar.gz");

        String root = "root-" + UUID.randomUUID();
        try (S3BlobStore atRoot = S3BlobStore.open(s3.settings(""))) {
            atRoot.put(BlobName.of(root, "x"), text("at the root"));
            assertThat(s3.keys(root + "/")).containsExactly(root + "/x");
            assertThat(atRoot.delete(BlobName.of(root, "x"))).isTrue();
        }
    }

    @Test
    void a_presigned_download_fetches_the_blob_from_the_bucket_with_the_type_and_disposition_asked_for()
            throws Exception {
        BlobName name = BlobName.of("artifacts", "job", "0", "report.html");
        store.put(name, text("<p>report</p>"));
        assertThat(store.directDownload(name, "text/html", "attachment")).as("off unless asked for").isEmpty();

        try (S3BlobStore presigning = S3BlobStore.open(s3.settings(prefix).withPresignedDownloads(true))) {
            URI url = presigning.directDownload(name, "text/html; charset=utf-8",
                    "attachment; filename=\"report.html\"").orElseThrow();

            assertThat(url.toString()).startsWith(s3.endpoint() + "/" + S3ProxyExtension.BUCKET + "/" + prefix
                    + "/artifacts/job/0/report.html?").contains("X-Amz-Signature=");
            HttpResponse<String> download = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(download.statusCode()).isEqualTo(200);
            assertThat(download.body()).isEqualTo("<p>report</p>");
            assertThat(download.headers().firstValue("Content-Type").orElseThrow().replace(" ", ""))
                    .isEqualTo("text/html;charset=utf-8");
            assertThat(download.headers().firstValue("Content-Disposition"))
                    .contains("attachment; filename=\"report.html\"");
            URI tampered = URI.create(url.toString().replace("report.html", "other.html"));
            assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(tampered).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(403);
        }
    }

    @Test
    void a_bucket_whose_endpoint_does_not_answer_is_unavailable_rather_than_refused() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        S3Settings settings = s3.settings(prefix);
        S3Settings nobodyThere = new S3Settings(settings.bucket(), "", URI.create("http://127.0.0.1:" + closedPort),
                settings.region(), true, settings.keys(), false);

        assertThatThrownBy(() -> S3BlobStore.open(nobodyThere)).isInstanceOf(StorageUnavailableException.class)
                .hasMessageStartingWith("cannot use the bucket s3://" + S3ProxyExtension.BUCKET
                        + " at http://127.0.0.1:" + closedPort + ": ");
    }

    @Test
    void a_bucket_that_does_not_exist_or_refuses_the_key_stops_the_open_with_its_name() {
        S3Settings settings = s3.settings(prefix);
        S3Settings missing = new S3Settings("no-such-bucket", "", settings.endpoint(), settings.region(), true,
                settings.keys(), false);
        S3Settings wrongKey = new S3Settings(settings.bucket(), "", settings.endpoint(), settings.region(), true,
                new S3Settings.Keys(settings.keys().accessKeyId(), "not-the-secret", null), false);

        assertThatThrownBy(() -> S3BlobStore.open(missing)).isExactlyInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot use the bucket s3://no-such-bucket at " + s3.endpoint() + ": 404");
        assertThatThrownBy(() -> S3BlobStore.open(wrongKey)).isExactlyInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot use the bucket s3://" + S3ProxyExtension.BUCKET + " at "
                        + s3.endpoint() + ": 403");
    }
}
