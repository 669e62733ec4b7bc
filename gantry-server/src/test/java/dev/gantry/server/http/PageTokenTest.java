package dev.gantry.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PageTokenTest {
    @Test
    void a_token_reads_back_as_the_position_it_was_made_from() {
        PageToken token = PageToken.after("acme", "app-1.0_x");

        assertThat(PageToken.decode(token.encode(), 2)).isEqualTo(token);
        assertThat(token.position()).containsExactly("acme", "app-1.0_x");
    }

    @Test
    void the_encoded_token_is_url_safe_and_shows_no_json() {
        String encoded = PageToken.after("a/b?c", "ü\"").encode();

        assertThat(encoded).matches("[A-Za-z0-9_-]+");
        assertThat(PageToken.decode(encoded, 2).position()).containsExactly("a/b?c", "ü\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not base64!", "e30", "WyJhIl0", "WyJhIiwiYiIsImMiXQ", "WyJhIixudWxsXQ", "bnVsbA"})
    void anything_else_is_a_400_naming_the_page_token(String text) {
        // e30 is {}, WyJhIl0 ["a"], WyJhIiwiYiIsImMiXQ ["a","b","c"], WyJhIixudWxsXQ ["a",null], bnVsbA null
        ApiException refused = catchThrowableOfType(ApiException.class, () -> PageToken.decode(text, 2));

        assertThat(refused).isNotNull();
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.field()).contains("page-token");
    }

    @Test
    void the_examples_above_are_what_they_claim() {
        assertThat(decode("e30")).isEqualTo("{}");
        assertThat(decode("WyJhIl0")).isEqualTo("[\"a\"]");
        assertThat(decode("WyJhIiwiYiIsImMiXQ")).isEqualTo("[\"a\",\"b\",\"c\"]");
        assertThat(decode("WyJhIixudWxsXQ")).isEqualTo("[\"a\",null]");
        assertThat(decode("bnVsbA")).isEqualTo("null");
        assertThat(PageToken.after("a", "b").encode()).isEqualTo(Base64.getUrlEncoder().withoutPadding()
                .encodeToString("[\"a\",\"b\"]".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void a_token_needs_a_position() {
        assertThat(catchThrowableOfType(IllegalArgumentException.class, () -> new PageToken(List.of()))).isNotNull();
    }

    private static String decode(String base64) {
        return new String(Base64.getUrlDecoder().decode(base64), StandardCharsets.UTF_8);
    }
}
