package dev.gantry.server.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SignaturesTest {
    private static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.UTF_8);

    @Test
    void github_documented_example_signature_verifies() {
        // GitHub's "Validating webhook deliveries" page: secret "It's a Secret to Everybody", payload "Hello, World!".
        String signature = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

        assertThat(Signatures.hmacSha256Matches("It's a Secret to Everybody", BODY, signature)).isTrue();
        assertThat(Signatures.hmacSha256Hex("It's a Secret to Everybody", BODY)).isEqualTo(signature);
    }

    @Test
    void a_signature_under_another_secret_or_of_another_body_does_not_verify() {
        String signature = Signatures.hmacSha256Hex("s3cret-s3cret-s3cret", BODY);

        assertThat(Signatures.hmacSha256Matches("another-secret-here", BODY, signature)).isFalse();
        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", "Hello, World?".getBytes(
                StandardCharsets.UTF_8), signature)).isFalse();
    }

    @Test
    void missing_or_malformed_signatures_do_not_verify() {
        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", BODY, null)).isFalse();
        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", BODY, "")).isFalse();
        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", BODY, "not hex")).isFalse();
        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", BODY, "abcd")).isFalse();
        assertThat(Signatures.hmacSha256Matches(null, BODY, "abcd")).isFalse();
    }

    @Test
    void uppercase_hex_verifies_too() {
        String signature = Signatures.hmacSha256Hex("s3cret-s3cret-s3cret", BODY).toUpperCase();

        assertThat(Signatures.hmacSha256Matches("s3cret-s3cret-s3cret", BODY, signature)).isTrue();
    }

    @Test
    void a_gitlab_token_matches_only_the_same_secret() {
        assertThat(Signatures.tokenMatches("s3cret-s3cret-s3cret", "s3cret-s3cret-s3cret")).isTrue();
        assertThat(Signatures.tokenMatches("s3cret-s3cret-s3cret", "s3cret-s3cret-s3cre")).isFalse();
        assertThat(Signatures.tokenMatches("s3cret-s3cret-s3cret", null)).isFalse();
        assertThat(Signatures.tokenMatches(null, "s3cret-s3cret-s3cret")).isFalse();
    }

    @Test
    void github_wants_its_sha256_prefix_and_gitea_plain_hex() {
        String hex = Signatures.hmacSha256Hex("s3cret-s3cret-s3cret", BODY);

        assertThat(new GitHub().verified("s3cret-s3cret-s3cret", BODY,
                name -> name.equals(GitHub.SIGNATURE_HEADER) ? "sha256=" + hex : null)).isTrue();
        assertThat(new GitHub().verified("s3cret-s3cret-s3cret", BODY,
                name -> name.equals(GitHub.SIGNATURE_HEADER) ? hex : null)).isFalse();
        assertThat(new Gitea().verified("s3cret-s3cret-s3cret", BODY,
                name -> name.equals(Gitea.SIGNATURE_HEADER) ? hex : null)).isTrue();
        assertThat(new GitLab().verified("s3cret-s3cret-s3cret", BODY,
                name -> name.equals(GitLab.TOKEN_HEADER) ? "s3cret-s3cret-s3cret" : null)).isTrue();
        assertThat(new GitLab().verified("s3cret-s3cret-s3cret", BODY, name -> null)).isFalse();
    }
}
