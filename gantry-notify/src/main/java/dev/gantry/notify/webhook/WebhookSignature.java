package dev.gantry.notify.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * CircleCI's webhook signature: {@code circleci-signature: v1=<hex HMAC-SHA256 of the raw body, keyed with the
 * signing secret>}. A receiver computes the same over the bytes it received and compares in constant time
 * ({@link #verify}); the header is a comma-separated list so that later versions can stand beside {@code v1}.
 * Stateless.
 */
public final class WebhookSignature {
    public static final String HEADER = "circleci-signature";

    private WebhookSignature() {
    }

    /** The header's value for {@code body} signed with {@code secret}: {@code v1=…}. */
    public static String sign(String secret, byte[] body) {
        return "v1=" + HexFormat.of().formatHex(hmac(secret, body));
    }

    /** Whether {@code header} holds a {@code v1} signature of {@code body} with {@code secret}. */
    public static boolean verify(String secret, byte[] body, String header) {
        byte[] expected = sign(secret, body).getBytes(StandardCharsets.US_ASCII);
        for (String part : header.split(",")) {
            if (MessageDigest.isEqual(expected, part.strip().getBytes(StandardCharsets.US_ASCII))) {
                return true;
            }
        }
        return false;
    }

    private static byte[] hmac(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK offers no HmacSHA256", e);
        }
    }
}
