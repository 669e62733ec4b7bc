package dev.gantry.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The SHA-256 hash of a token's text: what the database stores in its place. A plain hash is enough, without salt or
 * stretching, because the tokens are 256 random bits, not passwords a dictionary could guess. Immutable.
 */
public final class TokenHash {
    /** SHA-256 hashes are 32 bytes. */
    public static final int LENGTH = 32;

    private final byte[] bytes;

    private TokenHash(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The hash of {@code token}'s UTF-8 bytes. */
    public static TokenHash of(String token) {
        try {
            return new TokenHash(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** A hash as the database stored it. */
    public static TokenHash fromBytes(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a token hash has " + LENGTH + " bytes, got " + bytes.length);
        }
        return new TokenHash(bytes.clone());
    }

    /** True when both are the same hash; takes as long wherever they differ, so timing tells an attacker nothing. */
    public boolean matches(TokenHash other) {
        return MessageDigest.isEqual(bytes, other.bytes);
    }

    public byte[] bytes() {
        return bytes.clone();
    }

    /** The hash in hex: safe to log, as it does not authenticate. */
    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}
