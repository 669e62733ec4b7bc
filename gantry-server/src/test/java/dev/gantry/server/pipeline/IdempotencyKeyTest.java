package dev.gantry.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.gantry.server.http.ApiException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyTest {
    @ParameterizedTest
    @ValueSource(strings = {"k", "Idempotency key with spaces", "~!@#$%^&*()"})
    void idempotency_keys_are_printable_ascii(String key) {
        assertThat(IdempotencyKey.fromHeader(key)).contains(new IdempotencyKey(key));
    }

    @Test
    void idempotency_keys_are_1_to_255_characters_without_control_characters_or_non_ascii() {
        assertThat(IdempotencyKey.fromHeader(null)).isEmpty();
        assertThat(IdempotencyKey.fromHeader("k".repeat(255))).isPresent();
        for (String bad : new String[] {"", "k".repeat(256), "tab\there", "ünï"}) {
            ApiException refused = catchThrowableOfType(ApiException.class, () -> IdempotencyKey.fromHeader(bad));
            assertThat(refused).as(bad).isNotNull();
            assertThat(refused.field()).contains("Idempotency-Key");
        }
    }

    @Test
    void one_header_line_is_the_key_and_two_are_refused_even_when_equal() {
        assertThat(IdempotencyKey.fromHeaders(java.util.List.of())).isEmpty();
        assertThat(IdempotencyKey.fromHeaders(java.util.List.of("k1"))).contains(new IdempotencyKey("k1"));
        for (java.util.List<String> lines : java.util.List.of(java.util.List.of("k1", "k2"),
                java.util.List.of("k1", "k1"))) {
            ApiException refused = catchThrowableOfType(ApiException.class, () -> IdempotencyKey.fromHeaders(lines));
            assertThat(refused).as(lines.toString()).isNotNull();
            assertThat(refused.field()).contains("Idempotency-Key");
            assertThat(refused.getMessage()).contains("not 2");
        }
    }
}
