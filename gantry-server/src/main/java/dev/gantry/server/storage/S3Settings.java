package dev.gantry.server.storage;

import dev.gantry.server.InvalidServerSettingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where {@link S3BlobStore} keeps blobs: a bucket (and a key prefix in it) of Amazon S3 or of an S3-compatible server,
 * and how to reach and sign for it. Read with {@link #fromEnvironment}; checked when made, never replaced by a
 * default. Immutable; {@link #toString()} masks the secret key.
 *
 * @param bucket             the bucket ({@code GANTRY_BLOB_STORE=s3://BUCKET/PREFIX})
 * @param prefix             the keys' prefix, without leading or trailing {@code /}; empty for the bucket's root
 * @param endpoint           an S3-compatible server ({@value #ENDPOINT_VARIABLE}, e.g. {@code http://minio:9000});
 *                           null for Amazon S3
 * @param region             the region requests are signed for ({@value #REGION_VARIABLE}, else {@code AWS_REGION});
 *                           {@link #DEFAULT_COMPATIBLE_REGION} for an S3-compatible server that names none
 * @param pathStyle          {@code endpoint/bucket/key} rather than {@code bucket.endpoint/key}
 *                           ({@value #PATH_STYLE_VARIABLE}); by default on with an endpoint, off for Amazon S3
 * @param keys               the access key ({@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY}, optionally
 *                           {@code AWS_SESSION_TOKEN}); null for the AWS SDK's default chain (profile, web identity,
 *                           container or instance role)
 * @param presignedDownloads artifact downloads answer with a redirect to a presigned URL of the bucket instead of
 *                           passing the bytes through the server ({@value #PRESIGNED_DOWNLOADS_VARIABLE}, default
 *                           false): only when the users' clients can reach the bucket
 */
public record S3Settings(String bucket, String prefix, URI endpoint, String region, boolean pathStyle, Keys keys,
                         boolean presignedDownloads) {
    /** The variable that chooses the blob store: unset for files under {@code $GANTRY_HOME}. */
    public static final String BLOB_STORE_VARIABLE = "GANTRY_BLOB_STORE";
    public static final String ENDPOINT_VARIABLE = "GANTRY_S3_ENDPOINT";
    public static final String REGION_VARIABLE = "GANTRY_S3_REGION";
    public static final String PATH_STYLE_VARIABLE = "GANTRY_S3_PATH_STYLE";
    public static final String PRESIGNED_DOWNLOADS_VARIABLE = "GANTRY_S3_PRESIGNED_DOWNLOADS";
    public static final String ACCESS_KEY_VARIABLE = "AWS_ACCESS_KEY_ID";
    public static final String SECRET_KEY_VARIABLE = "AWS_SECRET_ACCESS_KEY";
    public static final String SESSION_TOKEN_VARIABLE = "AWS_SESSION_TOKEN";
    /** The region S3-compatible servers are signed for when none is named: most accept any, MinIO's default is it. */
    public static final String DEFAULT_COMPATIBLE_REGION = "us-east-1";

    /** The rule {@value #BLOB_STORE_VARIABLE} follows, as error messages state it. */
    public static final String BLOB_STORE_RULE = "must be s3://BUCKET or s3://BUCKET/PREFIX (unset it for files under "
            + "GANTRY_HOME)";
    /** The rule {@value #ENDPOINT_VARIABLE} follows, as error messages state it. */
    public static final String ENDPOINT_RULE = "must be an http or https URL with a host and nothing after it, e.g. "
            + "http://127.0.0.1:9000";
    /** Lenient on purpose: S3-compatible servers allow more than Amazon's rules (3 to 63 characters, lower case). */
    private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._\\-]{1,254}");
    private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9\\-]{0,62}");

    public S3Settings {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(region, "region");
        if (bucket == null || !BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("not a bucket name: " + bucket);
        }
        if (!prefix.isEmpty() && BlobName.parse(prefix).isEmpty()) {
            throw new IllegalArgumentException("the key prefix must be " + BlobName.RULE + ", got " + prefix);
        }
        if (endpoint != null && !validEndpoint(endpoint)) {
            throw new IllegalArgumentException("the endpoint " + ENDPOINT_RULE + ", got " + endpoint);
        }
        if (!REGION.matcher(region).matches()) {
            throw new IllegalArgumentException("not a region: " + region);
        }
    }

    /**
     * An access key. {@link #toString()} shows the key id and masks the rest.
     *
     * @param sessionToken null for a long-lived key
     */
    public record Keys(String accessKeyId, String secretAccessKey, String sessionToken) {
        public Keys {
            if (accessKeyId == null || accessKeyId.isBlank() || secretAccessKey == null || secretAccessKey.isBlank()) {
                throw new IllegalArgumentException("an access key needs its id and its secret");
            }
        }

        @Override
        public String toString() {
            return "Keys[accessKeyId=" + accessKeyId + ", secretAccessKey=****"
                    + (sessionToken == null ? "" : ", sessionToken=****") + "]";
        }
    }

    /** {@code s3://bucket/prefix}, as it was configured. */
    public String location() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }

    /** These settings with presigned downloads on or off. */
    public S3Settings withPresignedDownloads(boolean presignedDownloads) {
        return new S3Settings(bucket, prefix, endpoint, region, pathStyle, keys, presignedDownloads);
    }

    /**
     * The S3 settings the environment gives, or null when {@value #BLOB_STORE_VARIABLE} is unset (blobs are files
     * under {@code $GANTRY_HOME}). An S3 variable set without it is an error too: it was meant to take effect.
     *
     * @throws InvalidServerSettingException naming the variable and its rule
     */
    public static S3Settings fromEnvironment(Map<String, String> environment) {
        String store = environment.get(BLOB_STORE_VARIABLE);
        if (store == null) {
            List<String> stray = List.of(ENDPOINT_VARIABLE, REGION_VARIABLE, PATH_STYLE_VARIABLE,
                    PRESIGNED_DOWNLOADS_VARIABLE).stream().filter(environment::containsKey).toList();
            if (!stray.isEmpty()) {
                throw new InvalidServerSettingException(String.join(", ", stray) + (stray.size() == 1 ? " is" : " are")
                        + " set but " + BLOB_STORE_VARIABLE + " is not; set it to s3://BUCKET/PREFIX to keep blobs "
                        + "in S3, or unset " + String.join(", ", stray));
            }
            return null;
        }
        URI location = location(store);
        String bucket = location.getHost();
        String prefix = stripSlashes(location.getPath() == null ? "" : location.getPath());
        URI endpoint = endpoint(environment);
        String region = region(environment, endpoint);
        boolean pathStyle = flag(environment, PATH_STYLE_VARIABLE, endpoint != null);
        boolean presigned = flag(environment, PRESIGNED_DOWNLOADS_VARIABLE, false);
        try {
            return new S3Settings(bucket, prefix, endpoint, region, pathStyle, keys(environment), presigned);
        } catch (IllegalArgumentException invalid) {
            throw new InvalidServerSettingException(BLOB_STORE_VARIABLE + ": " + invalid.getMessage());
        }
    }

    private static URI location(String text) {
        if (!text.isBlank()) {
            try {
                URI uri = new URI(text.strip());
                String bucket = uri.getHost();
                String path = uri.getPath() == null ? "" : stripSlashes(uri.getPath());
                if ("s3".equals(uri.getScheme()) && bucket != null && BUCKET.matcher(bucket).matches()
                        && uri.getRawUserInfo() == null && uri.getPort() == -1 && uri.getRawQuery() == null
                        && uri.getRawFragment() == null && (path.isEmpty() || BlobName.parse(path).isPresent())) {
                    return uri;
                }
            } catch (URISyntaxException notAUri) {
                // reported below, like a URI of another scheme
            }
        }
        throw new InvalidServerSettingException(BLOB_STORE_VARIABLE + " " + BLOB_STORE_RULE + ", got '" + text + "'");
    }

    private static URI endpoint(Map<String, String> environment) {
        String text = environment.get(ENDPOINT_VARIABLE);
        if (text == null) {
            return null;
        }
        try {
            URI url = new URI(text.strip());
            if (validEndpoint(url)) {
                return url;
            }
        } catch (URISyntaxException notAUrl) {
            // reported below, like a URL of another scheme
        }
        throw new InvalidServerSettingException(ENDPOINT_VARIABLE + " " + ENDPOINT_RULE + ", got '" + text + "'");
    }

    private static String region(Map<String, String> environment, URI endpoint) {
        for (String variable : List.of(REGION_VARIABLE, "AWS_REGION", "AWS_DEFAULT_REGION")) {
            String text = environment.get(variable);
            if (text != null) {
                if (!REGION.matcher(text.strip()).matches()) {
                    throw new InvalidServerSettingException(variable + " must be a region such as eu-west-1, got '"
                            + text + "'");
                }
                return text.strip();
            }
        }
        if (endpoint == null) {
            throw new InvalidServerSettingException(BLOB_STORE_VARIABLE + " names an Amazon S3 bucket: set "
                    + REGION_VARIABLE + " (or AWS_REGION) to its region, e.g. eu-west-1");
        }
        return DEFAULT_COMPATIBLE_REGION;
    }

    private static Keys keys(Map<String, String> environment) {
        String id = environment.get(ACCESS_KEY_VARIABLE);
        String secret = environment.get(SECRET_KEY_VARIABLE);
        if (id == null && secret == null) {
            return null;
        }
        if (id == null || secret == null || id.isBlank() || secret.isBlank()) {
            throw new InvalidServerSettingException(ACCESS_KEY_VARIABLE + " and " + SECRET_KEY_VARIABLE + " go "
                    + "together, neither empty; unset both for the AWS SDK's default credentials");
        }
        String token = environment.get(SESSION_TOKEN_VARIABLE);
        return new Keys(id.strip(), secret.strip(), token == null || token.isBlank() ? null : token.strip());
    }

    private static boolean flag(Map<String, String> environment, String variable, boolean unset) {
        String text = environment.get(variable);
        if (text == null) {
            return unset;
        }
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw new InvalidServerSettingException(variable + " is true or false, got '" + text + "'");
        };
    }

    private static boolean validEndpoint(URI url) {
        String path = url.getRawPath();
        return url.isAbsolute() && url.getHost() != null && url.getRawUserInfo() == null
                && url.getRawQuery() == null && url.getRawFragment() == null
                && (path == null || path.isEmpty() || path.equals("/"))
                && ("http".equals(url.getScheme()) || "https".equals(url.getScheme()));
    }

    private static String stripSlashes(String path) {
        int from = 0;
        int to = path.length();
        while (from < to && path.charAt(from) == '/') {
            from++;
        }
        while (to > from && path.charAt(to - 1) == '/') {
            to--;
        }
        return path.substring(from, to);
    }
}
