package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.auth.ApiToken;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every /api/v2 request needs the admin token, in Circle-Token, Authorization: Bearer or as the basic-auth user (as
 * CircleCI's API takes it); all else is a JSON 401.
 */
class AuthenticationIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient anonymous;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        anonymous = server.api().anonymous();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void a_request_without_a_token_is_401_saying_what_to_send() {
        ApiClient.Answer answer = anonymous.get("/api/v2/project");

        assertUnauthorized(answer);
        assertThat(answer.text("message")).contains("missing API token", "Circle-Token: <token>",
                "Authorization: Bearer <token>", "curl -u <token>:", "admin-token");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Circle-Token", "Authorization"})
    void the_admin_token_is_accepted_in_either_header(String header) {
        String token = server.token(TokenKind.ADMIN);
        String value = header.equals("Authorization") ? "Bearer " + token : token;

        assertThat(anonymous.get("/api/v2/project", header, value).status()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"%s:", "%s", "%s:ignored-password"})
    void the_admin_token_is_accepted_as_the_basic_auth_user_as_curl_u_sends_it(String credentials) {
        String token = server.token(TokenKind.ADMIN);
        String basic = Base64.getEncoder().encodeToString(credentials.formatted(token).getBytes(StandardCharsets.UTF_8));

        assertThat(anonymous.get("/api/v2/project", "Authorization", "Basic " + basic).status()).isEqualTo(200);
        assertUnauthorized(anonymous.get("/api/v2/project", "Authorization", "Basic not-base64!"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Circle-Token", "Authorization"})
    void a_malformed_token_is_401_in_either_header(String header) {
        for (String malformed : new String[] {"hello", "gnt_admin_short", server.token(TokenKind.ADMIN) + "x"}) {
            String value = header.equals("Authorization") ? "Bearer " + malformed : malformed;

            ApiClient.Answer answer = anonymous.get("/api/v2/project", header, value);

            assertUnauthorized(answer);
            assertThat(answer.text("message")).startsWith("malformed API token");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"Circle-Token", "Authorization"})
    void a_well_formed_token_that_is_not_the_servers_is_401_in_either_header(String header) {
        String stranger = ApiToken.generate(TokenKind.ADMIN, new SecureRandom()).value();
        String value = header.equals("Authorization") ? "Bearer " + stranger : stranger;

        ApiClient.Answer answer = anonymous.get("/api/v2/project", header, value);

        assertUnauthorized(answer);
        assertThat(answer.text("message")).startsWith("unknown, expired or revoked API token");
    }

    @Test
    void me_is_the_admin_until_there_are_users() {
        ApiClient.Answer me = server.api().get("/api/v2/me");

        assertThat(me.status()).isEqualTo(200);
        assertThat(me.text("login")).isEqualTo("admin");
        assertThat(me.text("id")).isEqualTo(server.api().get("/api/v2/me").text("id"));
        assertUnauthorized(anonymous.get("/api/v2/me"));
    }

    @Test
    void the_agent_token_does_not_open_the_api() {
        ApiClient.Answer answer = anonymous.withToken(server.token(TokenKind.AGENT)).get("/api/v2/project");

        assertUnauthorized(answer);
        assertThat(answer.text("message")).startsWith("that is the agent token");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Basic YWRtaW46c2VjcmV0", "Bearer", "Token gnt_admin_x"})
    void authorization_with_another_scheme_or_no_token_is_401(String authorization) {
        assertUnauthorized(anonymous.get("/api/v2/project", "Authorization", authorization));
    }

    @Test
    void a_refused_request_changes_nothing() {
        ApiClient.Answer answer = anonymous.post("/api/v2/project", "{\"name\": \"app\", \"repo_url\": \"/tmp\"}");

        assertUnauthorized(answer);
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void unknown_api_routes_need_the_token_too_and_are_404_with_it() {
        assertUnauthorized(anonymous.get("/api/v2/nothing-here"));

        ApiClient.Answer answer = server.api().get("/api/v2/nothing-here");
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.text("message")).contains("GET /api/v2/nothing-here");
    }

    private static void assertUnauthorized(ApiClient.Answer answer) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(401);
        assertThat(answer.header("Content-Type")).startsWith("application/json");
        assertThat(answer.header("WWW-Authenticate")).isEqualTo("Bearer");
        assertThat(answer.text("message")).isNotBlank();
    }
}
