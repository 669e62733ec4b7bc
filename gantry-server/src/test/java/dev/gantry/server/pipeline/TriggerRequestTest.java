package dev.gantry.server.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gantry.server.http.ApiException;
import dev.gantry.server.http.Json;
import dev.gantry.server.http.JsonFields;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TriggerRequestTest {
    @Test
    void a_branch_trigger_with_revision_and_parameters() {
        TriggerRequest request = request("""
                {"branch": "feature/x", "revision": "0123abcDEF", "parameters": {"deploy": true, "n": 3, "who": "me"}}
                """);

        assertThat(request.ref()).isEqualTo(GitRef.branch("feature/x"));
        assertThat(request.ref().branch()).isEqualTo("feature/x");
        assertThat(request.ref().tag()).isNull();
        assertThat(request.revision()).isEqualTo("0123abcDEF");
        assertThat(request.parameters()).containsExactly(java.util.Map.entry("deploy", true),
                java.util.Map.entry("n", 3), java.util.Map.entry("who", "me"));
    }

    @Test
    void a_tag_trigger_needs_nothing_else() {
        TriggerRequest request = request("{\"tag\": \"v1.2.3\"}");

        assertThat(request.ref()).isEqualTo(GitRef.tag("v1.2.3"));
        assertThat(request.revision()).isNull();
        assertThat(request.parameters()).isEmpty();
    }

    @Test
    void at_most_one_of_branch_and_tag_and_neither_means_the_default_branch() {
        assertThat(request("{}").ref()).isNull();
        assertThat(request("{\"parameters\": {\"a\": 1}}").ref()).isNull();
        assertThat(refused("{\"revision\": \"abcdef0\"}").field()).contains("branch");
        assertThat(refused("{\"branch\": \"main\", \"tag\": \"v1\"}").getMessage()).contains("not both");
        assertThat(request("{\"branch\": \"main\", \"tag\": null}").ref()).isEqualTo(GitRef.branch("main"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "a..b", "-x", "/x", "x/", "x.", "x.lock", "a:b", "a~1", "a^", "a?", "a*",
        "a[b", "a\\\\b", "a@{1}", "a//b"})
    void ref_names_follow_gits_rules(String name) {
        assertThat(refused("{\"branch\": \"" + name + "\"}").field()).contains("branch");
        assertThat(refused("{\"tag\": \"" + name + "\"}").field()).contains("tag");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"branch\": \"main\", \"revision\": \"abc\"}                | revision",
        "{\"branch\": \"main\", \"revision\": \"xyz1234\"}            | revision",
        "{\"branch\": \"main\", \"revision\": 1234567}                | revision",
        "{\"branch\": \"main\", \"parameters\": []}                   | parameters",
        "{\"branch\": \"main\", \"parameters\": {\"a\": {}}}          | parameters.a",
        "{\"branch\": \"main\", \"parameters\": {\"a\": [1]}}         | parameters.a",
        "{\"branch\": \"main\", \"parameters\": {\"a\": null}}        | parameters.a",
        "{\"branch\": \"main\", \"parameters\": {\"1a\": 1}}          | parameters.1a",
        "{\"branch\": \"main\", \"parameters\": {\"a\": 1e400}}       | parameters.a",
        "{\"branch\": \"main\", \"parameters\": {\"a\": -1e309}}      | parameters.a",
        "{\"branch\": \"main\", \"params\": {}}                       | params",
        "{\"branch\": 5}                                              | branch",
    })
    void bad_fields_are_named(String json, String field) {
        assertThat(refused(json).field()).contains(field);
    }

    @Test
    void the_hash_ignores_formatting_and_key_order() {
        byte[] hash = request("{\"branch\": \"main\", \"parameters\": {\"a\": 1, \"b\": \"x\"}}").hash();

        assertThat(request("{\"parameters\":{\"b\":\"x\",\"a\":1},\n \"branch\":\"main\"}").hash()).isEqualTo(hash);
    }

    @Test
    void the_hash_tells_different_requests_apart() {
        byte[] hash = request("{\"branch\": \"main\", \"parameters\": {\"a\": 1}}").hash();

        assertThat(request("{\"tag\": \"main\", \"parameters\": {\"a\": 1}}").hash()).isNotEqualTo(hash);
        assertThat(request("{\"branch\": \"main\", \"parameters\": {\"a\": \"1\"}}").hash()).isNotEqualTo(hash);
        assertThat(request("{\"branch\": \"main\", \"parameters\": {\"a\": 2}}").hash()).isNotEqualTo(hash);
        assertThat(request("{\"branch\": \"main\", \"parameters\": {\"a\": 1}, \"revision\": \"abcdef0\"}").hash())
                .isNotEqualTo(hash);
        assertThat(request("{\"branch\": \"main\"}").hash()).isNotEqualTo(hash);
    }

    @Test
    void large_numbers_keep_their_value() {
        assertThat(request("{\"branch\": \"main\", \"parameters\": {\"big\": 123456789012345678901234567890}}")
                .parameters().get("big")).isEqualTo(new BigInteger("123456789012345678901234567890"));
    }

    private static TriggerRequest request(String json) {
        try {
            return TriggerRequest.from(JsonFields.of((ObjectNode) Json.MAPPER.readTree(json), TriggerRequest.FIELDS));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
    }

    private static ApiException refused(String json) {
        ApiException refused = catchThrowableOfType(ApiException.class, () -> request(json));
        assertThat(refused).as("refusal of %s", json).isNotNull();
        return refused;
    }
}
