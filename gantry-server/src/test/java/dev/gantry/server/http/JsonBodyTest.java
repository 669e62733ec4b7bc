package dev.gantry.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonBodyTest {
    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/json; charset=utf-8", "Application/JSON",
        "application/vnd.gantry+json"})
    void json_media_types_are_accepted(String contentType) {
        assertThatNoException().isThrownBy(() -> JsonBody.requireJsonContentType(contentType));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "text/plain", "application/x-www-form-urlencoded", "application/jsonp",
        "text/json+xml"})
    void other_media_types_are_415(String contentType) {
        assertThat(refused(() -> JsonBody.requireJsonContentType(contentType)).status()).isEqualTo(415);
    }

    @Test
    void no_content_type_is_415() {
        assertThat(refused(() -> JsonBody.requireJsonContentType(null)).getMessage())
                .contains("Content-Type: application/json");
    }

    @Test
    void an_object_parses() {
        assertThat(JsonBody.parseObject(bytes("{\"a\": [1, 2]}")).get("a").size()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "{\"a\": 1,}", "{\"a\": 1} {}", "{\"a\": 1, \"a\": 2}", "[1]", "\"text\"", "null",
        "nul"})
    void anything_but_one_json_object_is_400(String body) {
        ApiException refused = refused(() -> JsonBody.parseObject(bytes(body)));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.field()).isEmpty();
    }

    @Test
    void a_syntax_error_says_where_it_is() {
        assertThat(refused(() -> JsonBody.parseObject(bytes("{\n  \"a\": tru\n}"))).getMessage())
                .contains("line 2");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ApiException refused(Runnable action) {
        ApiException refused = catchThrowableOfType(ApiException.class, action::run);
        assertThat(refused).isNotNull();
        return refused;
    }
}
