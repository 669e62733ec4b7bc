package dev.gantry.notify.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {
    @Test
    void the_signature_is_v1_and_the_hex_hmac_sha256_of_the_body() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        byte[] body = "what do ya want for nothing?".getBytes(StandardCharsets.UTF_8);

        assertThat(WebhookSignature.sign("Jefe", body))
                .isEqualTo("v1=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    @Test
    void a_receiver_verifies_the_body_it_got_and_rejects_any_change_or_another_secret() {
        byte[] body = "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        String header = WebhookSignature.sign("s3cret", body);

        assertThat(WebhookSignature.verify("s3cret", body, header)).isTrue();
        assertThat(WebhookSignature.verify("s3cret", body, "v2=abc, " + header)).as("a list of versions").isTrue();
        assertThat(WebhookSignature.verify("other", body, header)).isFalse();
        assertThat(WebhookSignature.verify("s3cret", "{\"id\":\"y\"}".getBytes(StandardCharsets.UTF_8), header))
                .isFalse();
    }
}
