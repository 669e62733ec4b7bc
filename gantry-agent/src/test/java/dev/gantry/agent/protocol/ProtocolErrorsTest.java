package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProtocolErrorsTest {
    private static HttpCalls.Reply reply(int status, String body) {
        return new HttpCalls.Reply("workspace list", status, body.getBytes(StandardCharsets.UTF_8),
                HttpHeaders.of(Map.of(), (name, value) -> true));
    }

    @Test
    void an_unexpected_answer_says_the_servers_message_when_it_sent_one_and_the_body_otherwise() {
        assertThat(reply(410, "{\"message\": \"the workspace expired\"}").unexpected("workspace list"))
                .hasMessage("workspace list failed with HTTP 410: the workspace expired");
        assertThat(reply(502, "<html>Bad Gateway</html>").unexpected("claim"))
                .hasMessage("claim failed with HTTP 502: <html>Bad Gateway</html>");
    }
}
