package dev.gantry.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ApiTokenTest {
    private static final String ADMIN = "gnt_admin_" + "A".repeat(42) + "-";

    @Test
    void a_generated_token_is_its_prefix_and_43_url_safe_characters_and_parses_back() {
        ApiToken token = ApiToken.generate(TokenKind.AGENT, new SecureRandom());

        assertThat(token.value()).matches("gnt_agent_[A-Za-z0-9_-]{43}");
        assertThat(ApiToken.parse(token.value())).contains(token);
    }

    @Test
    void generated_tokens_differ() {
        SecureRandom random = new SecureRandom();
        Set<String> values = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            values.add(ApiToken.generate(TokenKind.ADMIN, random).value());
        }
        assertThat(values).hasSize(100);
    }

    @Test
    void parse_tells_the_kind_from_the_prefix() {
        assertThat(ApiToken.parse(ADMIN)).get().extracting(ApiToken::kind).isEqualTo(TokenKind.ADMIN);
        assertThat(ApiToken.parse(ADMIN.replace("admin", "agent"))).get().extracting(ApiToken::kind)
                .isEqualTo(TokenKind.AGENT);
    }

    static List<String> notTokens() {
        String body = "A".repeat(43);
        return List.of("", "gnt_admin_", "gnt_root_" + body, "gnt_admin_" + body.substring(1),
                "gnt_admin_" + body + "A", "gnt_admin_" + body.substring(1) + "+", "GNT_ADMIN_" + body,
                " gnt_admin_" + body, "Bearer gnt_admin_" + body, "gnt_admin_" + body.substring(1) + "=");
    }

    @ParameterizedTest
    @MethodSource("notTokens")
    void parse_refuses_anything_but_a_prefix_and_43_url_safe_characters(String text) {
        assertThat(ApiToken.parse(text)).isEmpty();
    }

    @Test
    void the_hash_is_sha_256_of_the_token_text() {
        // The SHA-256 test vector of FIPS 180-2: "abc".
        assertThat(TokenHash.of("abc").toString())
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(ApiToken.parse(ADMIN).orElseThrow().hash().matches(TokenHash.of(ADMIN))).isTrue();
    }

    @Test
    void hashes_match_only_their_own_token() {
        TokenHash hash = TokenHash.of(ADMIN);

        assertThat(hash.matches(TokenHash.fromBytes(hash.bytes()))).isTrue();
        assertThat(hash.matches(TokenHash.of(ADMIN.replace('-', '_')))).isFalse();
    }

    @Test
    void to_string_does_not_show_the_secret() {
        ApiToken token = ApiToken.parse(ADMIN).orElseThrow();

        assertThat(token.toString()).isEqualTo("gnt_admin_…").doesNotContain("AAAA");
    }
}
