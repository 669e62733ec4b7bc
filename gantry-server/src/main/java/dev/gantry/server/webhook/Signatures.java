package dev.gantry.server.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The forges' ways of proving a delivery comes from them, each compared in constant time
 * ({@link MessageDigest#isEqual}). Pure and thread-safe.
 */
final class Signatures {
    private static final String HMAC_SHA256 = "HmacSHA256";

    private Signatures() {
    }

    /**
     * Whether {@code hexSignature} is HMAC-SHA256 of {@code body} under {@code secret} (GitHub's
     * {@code X-Hub-Signature-256} after its {@code sha256=}, Gitea's {@code X-Gitea-Signature}); false for a
     * missing or malformed signature.
     */
    static boolean hmacSha256Matches(String secret, byte[] body, String hexSignature) {
        if (secret == null || hexSignature == null) {
            return false;
        }
        byte[] given;
        try {
            given = HexFormat.of().parseHex(hexSignature.strip());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(hmacSha256(secret, body), given);
    }

    /** HMAC-SHA256 of {@code body} under {@code secret}, as lower-case hex: what a forge sends. */
    static String hmacSha256Hex(String secret, byte[] body) {
        return HexFormat.of().formatHex(hmacSha256(secret, body));
    }

    /**
     * Whether {@code token} is {@code secret} (GitLab's {@code X-Gitlab-Token}). Both are hashed first, so the time
     * taken does not even tell the secret's length.
     */
    static boolean tokenMatches(String secret, String token) {
        if (secret == null || token == null) {
            return false;
        }
        return MessageDigest.isEqual(sha256(secret), sha256(token));
    }

    private static byte[] hmacSha256(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance(HMAC_SHA256);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC_SHA256));
            return mac.doFinal(body);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256 and takes any key for it", e);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
