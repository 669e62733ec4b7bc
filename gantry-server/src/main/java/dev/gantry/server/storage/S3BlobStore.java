package dev.gantry.server.storage;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * A {@link BlobStore} in an S3 bucket (Amazon S3 or an S3-compatible server), for several servers that share their
 * blobs: blob {@code a/b/c} is the object {@code prefix/a/b/c}. A write of up to one part ({@link #DEFAULT_PART_SIZE})
 * is one {@code PutObject}; a longer one is a multipart upload, read from the stream one part at a time, so an upload
 * in flight holds one part in memory whatever the blob's size. Either way the object appears only complete, when the
 * put or the upload's completion returns; a failed write aborts its upload and publishes nothing.
 * {@link #putIfAbsent} sends {@code If-None-Match: *}, which Amazon S3 (and MinIO, S3Proxy) decide atomically; a
 * server that ignores the header lets the last writer win, which for a cache key (the one user) leaves a complete
 * archive either way.
 *
 * <p>A bucket that does not answer, or answers with a server error, fails a call with
 * {@link StorageUnavailableException} (the API's 503); the SDK has retried it a few times first. Reads stream the
 * object from the bucket. {@link #directDownload} presigns a {@code GetObject} when the settings
 * ask for it. Deleting a blob that a reader has open does not cut the reader off (S3 finishes a GET it started).
 * Thread-safe; {@link #close()} once, when the server stops.
 */
public final class S3BlobStore implements BlobStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(S3BlobStore.class);
    /**
     * The size of a multipart upload's parts: S3's least is 5 MiB (except the last), its most parts 10,000, so blobs
     * up to 80 GiB fit; each upload in flight holds one part in memory.
     */
    public static final int DEFAULT_PART_SIZE = 8 << 20;
    /** S3's smallest part but the last. */
    static final int MIN_PART_SIZE = 5 << 20;
    /** How long a presigned download URL works: enough to start a download, too short to pass around. */
    public static final Duration DOWNLOAD_URL_VALID_FOR = Duration.ofMinutes(5);
    static final int MAX_PARTS = 10_000;
    static final int PRECONDITION_FAILED = 412;
    static final int CONFLICT = 409;

    private final S3Client s3;
    private final S3Presigner presigner;
    private final String bucket;
    private final String prefix;
    private final int partSize;

    private S3BlobStore(S3Client s3, S3Presigner presigner, String bucket, String prefix, int partSize) {
        this.s3 = s3;
        this.presigner = presigner;
        this.bucket = bucket;
        this.prefix = prefix;
        this.partSize = partSize;
    }

    /**
     * Opens the bucket {@code settings} name, with parts of {@link #DEFAULT_PART_SIZE}, and checks that it answers.
     *
     * @throws IOException naming the bucket and the endpoint when it is missing or refuses the credentials; a
     *                     {@link StorageUnavailableException} when it does not answer
     */
    public static S3BlobStore open(S3Settings settings) throws IOException {
        return open(settings, DEFAULT_PART_SIZE);
    }

    /** As {@link #open(S3Settings)} with parts of {@code partSize} bytes, at least {@link #MIN_PART_SIZE}. */
    static S3BlobStore open(S3Settings settings, int partSize) throws IOException {
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("S3's parts are at least 5 MiB, got " + partSize + " bytes");
        }
        AwsCredentialsProvider credentials = credentials(settings.keys());
        Region region = Region.of(settings.region());
        var client = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10)).socketTimeout(Duration.ofSeconds(60)))
                .region(region).credentialsProvider(credentials).forcePathStyle(settings.pathStyle())
                // Checksums only where S3 requires them: many S3-compatible servers refuse the SDK's default
                // trailing checksums; transfers are guarded by TLS and by the size the caller checks.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        S3Presigner.Builder presigning = settings.presignedDownloads() ? S3Presigner.builder().region(region)
                .credentialsProvider(credentials).serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(settings.pathStyle()).build()) : null;
        if (settings.endpoint() != null) {
            client.endpointOverride(settings.endpoint());
            if (presigning != null) {
                presigning.endpointOverride(settings.endpoint());
            }
        }
        S3BlobStore store = new S3BlobStore(client.build(), presigning == null ? null : presigning.build(),
                settings.bucket(), settings.prefix(), partSize);
        try {
            store.s3.headBucket(b -> b.bucket(settings.bucket()));
            return store;
        } catch (SdkException e) {
            store.close();
            String message = "cannot use the bucket " + settings.location() + " at "
                    + (settings.endpoint() == null ? "Amazon S3 (" + settings.region() + ")" : settings.endpoint())
                    + ": " + reason(e);
            throw unavailable(e) ? new StorageUnavailableException(message, e) : new IOException(message, e);
        }
    }

    private static AwsCredentialsProvider credentials(S3Settings.Keys keys) {
        if (keys == null) {
            return DefaultCredentialsProvider.builder().build();
        }
        AwsCredentials credentials = keys.sessionToken() == null
                ? AwsBasicCredentials.create(keys.accessKeyId(), keys.secretAccessKey())
                : AwsSessionCredentials.create(keys.accessKeyId(), keys.secretAccessKey(), keys.sessionToken());
        return StaticCredentialsProvider.create(credentials);
    }

    @Override
    public long put(BlobName name, InputStream content) throws IOException {
        return write(name, content, false).orElseThrow();
    }

    @Override
    public Optional<Long> putIfAbsent(BlobName name, InputStream content) throws IOException {
        if (size(name).isPresent()) {
            return Optional.empty(); // taken: no need to send gigabytes to learn it
        }
        return writeIfAbsent(name, content);
    }

    /** {@link #putIfAbsent} without the look first: the bucket alone decides, as when two writers race. */
    Optional<Long> writeIfAbsent(BlobName name, InputStream content) throws IOException {
        return write(name, content, true);
    }

    /** Writes {@code content} in one put or one multipart upload; empty when {@code ifAbsent} and the name is taken. */
    private Optional<Long> write(BlobName name, InputStream content, boolean ifAbsent) throws IOException {
        String key = key(name);
        byte[] part = new byte[partSize];
        int length = content.readNBytes(part, 0, part.length);
        if (length < partSize) {
            try {
                s3.putObject(p -> p.bucket(bucket).key(key).contentLength((long) length)
                        .ifNoneMatch(ifAbsent ? "*" : null), body(part, length));
                return Optional.of((long) length);
            } catch (S3Exception e) {
                if (ifAbsent && taken(e)) {
                    return Optional.empty();
                }
                throw failure("writing", key, e);
            } catch (SdkException e) {
                throw failure("writing", key, e);
            }
        }
        return writeInParts(key, content, part, length, ifAbsent);
    }

    private Optional<Long> writeInParts(String key, InputStream content, byte[] part, int firstLength,
                                        boolean ifAbsent) throws IOException {
        String upload;
        try {
            upload = s3.createMultipartUpload(c -> c.bucket(bucket).key(key)).uploadId();
        } catch (SdkException e) {
            throw failure("starting an upload of", key, e);
        }
        boolean published = false;
        try {
            List<CompletedPart> parts = new ArrayList<>();
            long size = 0;
            for (int length = firstLength; length > 0; length = content.readNBytes(part, 0, part.length)) {
                int number = parts.size() + 1;
                if (number > MAX_PARTS) {
                    throw new IOException("cannot write s3://" + bucket + "/" + key + ": larger than " + MAX_PARTS
                            + " parts of " + partSize + " bytes");
                }
                int partLength = length;
                String etag = s3.uploadPart(u -> u.bucket(bucket).key(key).uploadId(upload).partNumber(number)
                        .contentLength((long) partLength), body(part, length)).eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
                size += length;
                if (length < partSize) {
                    break; // the stream ended inside this part
                }
            }
            try {
                s3.completeMultipartUpload(c -> c.bucket(bucket).key(key).uploadId(upload)
                        .multipartUpload(m -> m.parts(parts)).ifNoneMatch(ifAbsent ? "*" : null));
            } catch (S3Exception e) {
                if (ifAbsent && taken(e)) {
                    return Optional.empty();
                }
                throw e;
            }
            published = true;
            return Optional.of(size);
        } catch (SdkException e) {
            throw failure("writing", key, e);
        } finally {
            if (!published) {
                abort(key, upload);
            }
        }
    }

    /** Aborts an upload that will not complete, so its parts stop taking space; a failure here is the lesser one. */
    private void abort(String key, String upload) {
        try {
            s3.abortMultipartUpload(a -> a.bucket(bucket).key(key).uploadId(upload));
        } catch (SdkException e) {
            // The write's own failure propagates; a bucket lifecycle rule removes what is left (docs/storage.md).
            LOG.warn("Cannot abort the upload {} of s3://{}/{}",
                    upload, bucket, key, e);
        }
    }

    @Override
    public Optional<Blob> open(BlobName name) throws IOException {
        String key = key(name);
        try {
            ResponseInputStream<GetObjectResponse> in = s3.getObject(g -> g.bucket(bucket).key(key));
            return Optional.of(new Blob(in, in.response().contentLength()));
        } catch (NoSuchKeyException missing) {
            return Optional.empty();
        } catch (SdkException e) {
            throw failure("reading", key, e);
        }
    }

    @Override
    public Optional<Long> size(BlobName name) throws IOException {
        String key = key(name);
        try {
            return Optional.of(s3.headObject(h -> h.bucket(bucket).key(key)).contentLength());
        } catch (NoSuchKeyException missing) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) { // HEAD answers have no body to name the error by
                return Optional.empty();
            }
            throw failure("looking at", key, e);
        } catch (SdkException e) {
            throw failure("looking at", key, e);
        }
    }

    /** S3 deletes without saying whether there was an object; a look first tells, for the answer only. */
    @Override
    public boolean delete(BlobName name) throws IOException {
        String key = key(name);
        boolean existed = size(name).isPresent();
        try {
            s3.deleteObject(d -> d.bucket(bucket).key(key));
            return existed;
        } catch (SdkException e) {
            throw failure("deleting", key, e);
        }
    }

    @Override
    public Optional<URI> directDownload(BlobName name, String contentType, String contentDisposition)
            throws IOException {
        if (presigner == null) {
            return Optional.empty();
        }
        String key = key(name);
        try {
            return Optional.of(presigner.presignGetObject(p -> p.signatureDuration(DOWNLOAD_URL_VALID_FOR)
                    .getObjectRequest(g -> g.bucket(bucket).key(key).responseContentType(contentType)
                            .responseContentDisposition(contentDisposition))).url().toURI());
        } catch (SdkException | java.net.URISyntaxException e) {
            throw new IOException("cannot presign a download of s3://" + bucket + "/" + key + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public void close() {
        s3.close();
        if (presigner != null) {
            presigner.close();
        }
    }

    @Override
    public String toString() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }

    String key(BlobName name) {
        return prefix.isEmpty() ? name.toString() : prefix + "/" + name;
    }

    /** The answer of a conditional write whose name was taken, or that raced another conditional write of it. */
    private static boolean taken(S3Exception e) {
        return e.statusCode() == PRECONDITION_FAILED || e.statusCode() == CONFLICT;
    }
    /** The first {@code length} bytes of {@code buffer}, readable again for a retry, without a copy. */
    private static RequestBody body(byte[] buffer, int length) {
        return RequestBody.fromContentProvider(() -> new ByteArrayInputStream(buffer, 0, length), length,
                "application/octet-stream");
    }

    private IOException failure(String doing, String key, SdkException e) {
        String message = doing + " s3://" + bucket + "/" + key + " failed: " + reason(e);
        return unavailable(e) ? new StorageUnavailableException(message, e) : new IOException(message, e);
    }

    /** No answer at all, or a server error: the bucket may take the same request later. */
    private static boolean unavailable(SdkException e) {
        return e instanceof SdkClientException || e instanceof S3Exception s3 && s3.statusCode() >= 500;
    }

    private static String reason(SdkException e) {
        if (e instanceof S3Exception s3 && s3.awsErrorDetails() != null) {
            return s3.statusCode() + " " + Objects.requireNonNullElse(s3.awsErrorDetails().errorCode(), "")
                    + (s3.awsErrorDetails().errorMessage() == null ? "" : ": " + s3.awsErrorDetails().errorMessage());
        }
        return e.getMessage();
    }
}
