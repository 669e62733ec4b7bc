package dev.gantry.server.auth;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A token as its holder presents it: the kind's prefix, then 32 random bytes in URL-safe base64 without padding
 * (43 characters), e.g. {@code gnt_admin_3q2-7w...}. The prefix lets a person, a log scrubber or a secret scanner
 * recognise a Gantry token; the random part is what authenticates.
 *
 * <p>{@link #toString()} masks the secret part, so a token that ends up in a log line does not leak.
 */
public record ApiToken(TokenKind kind, String value) {
    /** Random bytes per token: 256 bits, beyond guessing. */
    public static final int RANDOM_BYTES = 32;

    private static final Pattern FORMAT = Pattern.compile("gnt_(admin|agent|user|agentkey)_([A-Za-z0-9_-]{43})");

    public ApiToken {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(value, "value");
        if (!value.startsWith(kind.prefix()) || !FORMAT.matcher(value).matches()) {
            throw new IllegalArgumentException("not a " + kind.label() + " token");
        }
    }

    /** A new token of {@code kind}, from {@code random}. */
    public static ApiToken generate(TokenKind kind, SecureRandom random) {
        byte[] secret = new byte[RANDOM_BYTES];
        random.nextBytes(secret);
        return new ApiToken(kind, kind.prefix() + Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
    }

    /** The token {@code text} holds, or empty when it is not one in Gantry's format (of either kind). */
    public static Optional<ApiToken> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher matcher = FORMAT.matcher(text);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        TokenKind kind = matcher.group(1).equals("agentkey") ? TokenKind.AGENT_KEY
                : TokenKind.valueOf(matcher.group(1).toUpperCase(Locale.ROOT));
        return Optional.of(new ApiToken(kind, text));
    }

    public TokenHash hash() {
        return TokenHash.of(value);
    }

    @Override
    public String toString() {
        return kind.prefix() + "…";
    }
}
