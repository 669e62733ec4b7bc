package dev.gantry.agent.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.agent.testing.Assignments;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignmentJsonTest {
    static final ObjectNode PLAIN = Assignments.of(Assignments.job("build", List.of()), "", "main", "abc");

    @Test
    void secrets_are_read_in_the_server_s_order() throws Exception {
        Map<String, String> secrets = new LinkedHashMap<>();
        secrets.put("ZETA", "from-project");
        secrets.put("ALPHA", "from-context");
        secrets.put("MIDDLE", "line one\nline two");

        Assignment a = read(Assignments.withSecrets(PLAIN, secrets));

        assertThat(a.secrets()).containsExactlyEntriesOf(secrets);
    }

    @Test
    void an_assignment_without_secrets_or_with_null_has_none() throws Exception {
        assertThat(read(PLAIN).secrets()).isEmpty();
        ObjectNode nulls = PLAIN.deepCopy();
        nulls.putNull("secrets");
        assertThat(read(nulls).secrets()).isEmpty();
    }

    @Test
    void a_refusal_of_the_job_s_secrets_is_read_with_its_reason() throws Exception {
        ObjectNode refused = PLAIN.deepCopy();
        refused.put("secrets_error", "The job names context 'prod', which it may not use.");

        assertThat(read(refused).secretsError()).isEqualTo("The job names context 'prod', which it may not use.");
        assertThat(read(PLAIN).secretsError()).isNull();
    }

    @Test
    void an_assignment_that_cannot_be_read_is_reported_without_its_body() {
        ObjectNode broken = Assignments.withSecrets(PLAIN, Map.of("API_TOKEN", "s3cr3t-value-4711"));
        ((ObjectNode) broken.get("job")).put("number", "not a number");

        assertThatThrownBy(() -> read(broken)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("number").hasMessageNotContaining("s3cr3t-value-4711");
    }

    private static Assignment read(ObjectNode json) throws Exception {
        byte[] body = HttpAgentServer.JSON.writeValueAsBytes(json);
        return HttpAgentServer.read(new HttpCalls.Reply("claim", 200, body,
                HttpHeaders.of(Map.of(), (name, value) -> true)), Assignment.class);
    }
}
