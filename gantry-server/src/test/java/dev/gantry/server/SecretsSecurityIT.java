package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Project environment variables and contexts over CircleCI's API shapes: values never come back, they are sealed
 * with AES-GCM under a data key the master key file wraps (the database holds no value and no usable key), a
 * rotation re-wraps the data keys while the server runs, and a claimed job gets the project's variables and its
 * contexts' in precedence order, or the reason it may not.
 */
class SecretsSecurityIT {
    static final String SECRET = "hunter2-correct-horse-4711";

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @TempDir
    Path home;

    TestServer server;
    ApiClient api;
    RunFixtures runs;

    @BeforeEach
    void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
        runs = new RunFixtures(server.jdbi()); // the project acme/app and a pipeline of it
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void a_project_variable_is_listed_with_a_hint_and_never_with_its_value() {
        ApiClient.Answer created = api.post("/api/v2/project/gh/acme/app/envvar",
                "{\"name\": \"DEPLOY_TOKEN\", \"value\": \"" + SECRET + "\"}");
        api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"PIN\", \"value\": \"42\"}");

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.text("name")).isEqualTo("DEPLOY_TOKEN");
        assertThat(created.text("value")).isEqualTo("xxxx4711");
        assertThat(created.json().path("created-at").asText()).isNotEmpty();
        assertThat(created.json().path("masked_in_output").asBoolean()).isTrue();
        JsonNode list = api.get("/api/v2/project/gh/acme/app/envvar").json();
        assertThat(list.path("items").findValuesAsText("name")).containsExactly("DEPLOY_TOKEN", "PIN");
        assertThat(list.path("items").get(1).path("value").asText()).isEqualTo("xxxx");
        assertThat(list.path("items").get(1).path("masked_in_output").asBoolean()).as("too short to mask").isFalse();
        assertThat(api.get("/api/v2/project/gh/acme/app/envvar/DEPLOY_TOKEN").text("value")).isEqualTo("xxxx4711");
        assertThat(list.toString() + created.body()).doesNotContain(SECRET);

        assertThat(api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"2BAD\", \"value\": \"x\"}").status())
                .isEqualTo(400);
        assertThat(api.delete("/api/v2/project/gh/acme/app/envvar/PIN").text("message"))
                .isEqualTo("Environment variable deleted.");
        assertThat(api.get("/api/v2/project/gh/acme/app/envvar/PIN").status()).isEqualTo(404);
        assertThat(api.get("/api/v2/project/gh/acme/nope/envvar").status()).isEqualTo(404);
    }

    @Test
    void contexts_belong_to_an_organization_and_list_variables_by_name_only() {
        ApiClient.Answer created = api.post("/api/v2/context",
                "{\"name\": \"aws-creds\", \"owner\": {\"slug\": \"gh/acme\", \"type\": \"organization\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(200);
        String id = created.text("id");
        String orgId = api.get("/api/v2/project/gh/acme/app").text("organization_id");

        ApiClient.Answer put = api.put("/api/v2/context/" + id + "/environment-variable/AWS_SECRET_ACCESS_KEY",
                "{\"value\": \"" + SECRET + "\"}");

        assertThat(put.status()).as(put.body()).isEqualTo(200);
        assertThat(put.text("variable")).isEqualTo("AWS_SECRET_ACCESS_KEY");
        assertThat(put.text("context_id")).isEqualTo(id);
        assertThat(api.get("/api/v2/context?owner-slug=gh/acme").json().path("items").findValuesAsText("name"))
                .containsExactly("aws-creds");
        assertThat(api.get("/api/v2/context?owner-id=" + orgId).json().path("items").findValuesAsText("id"))
                .containsExactly(id);
        assertThat(api.get("/api/v2/context?owner-slug=gh/other").json().path("items")).isEmpty();
        JsonNode variables = api.get("/api/v2/context/" + id + "/environment-variable").json();
        assertThat(variables.path("items").findValuesAsText("variable")).containsExactly("AWS_SECRET_ACCESS_KEY");
        assertThat(variables.toString()).doesNotContain(SECRET);
        assertThat(api.post("/api/v2/context", "{\"name\": \"aws-creds\", \"owner\": {\"slug\": \"gh/acme\"}}")
                .status()).as("one name per organization").isEqualTo(409);
        assertThat(api.get("/api/v2/context").status()).as("the owner is required").isEqualTo(400);

        assertThat(api.delete("/api/v2/context/" + id).status()).isEqualTo(200);
        assertThat(api.get("/api/v2/context/" + id).status()).isEqualTo(404);
        assertThat(server.count("gantry.context_env_var")).isZero();
    }

    @Test
    void the_database_holds_neither_a_value_nor_a_usable_key_and_the_master_key_file_is_0600() throws Exception {
        api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"DEPLOY_TOKEN\", \"value\": \"" + SECRET + "\"}");

        Path keyFile = home.resolve("master-key");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile))).isEqualTo("rw-------");
        byte[] sealed = server.jdbi().withHandle(h -> h.createQuery("SELECT sealed FROM gantry.project_env_var")
                .mapTo(byte[].class).one());
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain(SECRET)
                .doesNotContain(Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8)));
        String masterKey = Files.readAllLines(keyFile).stream().filter(l -> l.startsWith("mk-")).findFirst()
                .orElseThrow().split(" ")[1];
        String dump = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT string_agg(encode(wrapped, 'base64'), ',') FROM gantry.data_key").mapTo(String.class).one());
        assertThat(dump).doesNotContain(masterKey);
    }

    @Test
    void a_key_file_others_may_read_stops_the_start_and_says_how_to_fix_it() throws Exception {
        server.close();
        Path keyFile = home.resolve("master-key");
        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> TestServer.start(pg.dataSource(), home)).isInstanceOf(ServerStartException.class)
                .hasMessageContaining("chmod 600 " + keyFile);

        Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
        server = TestServer.start(pg.dataSource(), home);
    }

    @Test
    void rotating_the_master_key_rewraps_every_data_key_and_values_still_open() throws Exception {
        api.post("/api/v2/project/gantry/acme/app/envvar", "{\"name\": \"DEPLOY_TOKEN\", \"value\": \"" + SECRET
                + "\"}");
        String before = Files.readString(home.resolve("master-key"));

        ApiClient.Answer rotated = api.post("/api/v2/admin/master-key/rotate", "");

        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().path("data_keys_rewrapped").asInt()).isEqualTo(1);
        String after = Files.readString(home.resolve("master-key"));
        String retired = rotated.json().path("retired").get(0).asText();
        assertThat(before).contains(retired);
        assertThat(after).doesNotContain(retired).contains(rotated.text("master_key_id"));
        List<String> wrappers = server.jdbi().withHandle(h -> h.createQuery(
                "SELECT DISTINCT master_key_id FROM gantry.data_key").mapTo(String.class).list());
        assertThat(wrappers).containsExactly(rotated.text("master_key_id"));

        // A new server process opens the values with the new file alone.
        server.close();
        server = TestServer.start(pg.dataSource(), home);
        UUID job = runs.job(runs.workflow("build"), "deploy").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        JsonNode assignment = agent.claimed(agent.registered("host-1")).assignment();
        assertThat(assignment.path("task").path("job_id").asText()).isEqualTo(job.toString());
        assertThat(assignment.path("secrets").path("DEPLOY_TOKEN").asText()).isEqualTo(SECRET);
    }

    @Test
    void a_claimed_job_gets_project_then_context_variables_in_the_order_it_names_the_contexts() {
        api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"REGION\", \"value\": \"from-project\"}");
        api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"ONLY_PROJECT\", \"value\": \"p-value\"}");
        String aws = context("aws", "REGION", "from-aws");
        String eu = context("eu", "REGION", "from-eu");
        api.put("/api/v2/context/" + aws + "/environment-variable/AWS_KEY", "{\"value\": \"" + SECRET + "\"}");
        UUID workflow = runs.workflow("deploy");
        runs.job(workflow, "deploy").contexts("aws", "eu").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));

        JsonNode secrets = agent.claimed(agent.registered("host-1")).assignment().path("secrets");

        List<String> names = new ArrayList<>();
        secrets.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsExactly("ONLY_PROJECT", "AWS_KEY", "REGION");
        assertThat(secrets.path("REGION").asText()).as("the last context named wins").isEqualTo("from-eu");
        assertThat(secrets.path("AWS_KEY").asText()).isEqualTo(SECRET);
        assertThat(eu).isNotEqualTo(aws);
    }

    @Test
    void a_job_naming_a_context_its_organization_lacks_gets_no_secret_and_the_reason() {
        api.post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"DEPLOY_TOKEN\", \"value\": \"" + SECRET + "\"}");
        api.post("/api/v2/context", "{\"name\": \"prod\", \"owner\": {\"slug\": \"gh/other-org\"}}");
        runs.job(runs.workflow("deploy"), "deploy").contexts("prod").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));

        JsonNode assignment = agent.claimed(agent.registered("host-1")).assignment();

        assertThat(assignment.has("secrets")).isFalse();
        assertThat(assignment.path("secrets_error").asText())
                .contains("context 'prod'", "organization acme does not have");
        assertThat(assignment.toString()).doesNotContain(SECRET);
    }

    @Test
    void a_context_restricted_to_groups_is_refused_to_a_pipeline_whose_actor_is_in_none_of_them() {
        String prod = context("prod", "DEPLOY_KEY", SECRET);
        ApiClient.Answer restricted = api.post("/api/v2/context/" + prod + "/restrictions",
                "{\"restriction_type\": \"group\", \"restriction_value\": \"deployers\"}");
        assertThat(restricted.status()).as(restricted.body()).isEqualTo(201);
        assertThat(api.get("/api/v2/context/" + prod + "/restrictions").json().path("items")
                .findValuesAsText("restriction_value")).containsExactly("deployers");
        UUID workflow = runs.workflow("deploy");
        runs.job(workflow, "first").contexts("prod").insert();
        runs.job(workflow, "second").contexts("prod").insert();
        AgentClient agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String agentId = agent.registered("host-1");

        JsonNode refused = agent.claimed(agentId).assignment();
        assertThat(api.put("/api/v2/organization/acme/group/deployers/member/admin", "{}").status()).isEqualTo(200);
        JsonNode granted = agent.claimed(agentId).assignment();

        assertThat(refused.path("secrets_error").asText()).contains("context 'prod'", "(deployers)",
                "actor admin is in none");
        assertThat(refused.toString()).doesNotContain(SECRET);
        assertThat(granted.path("secrets").path("DEPLOY_KEY").asText()).isEqualTo(SECRET);
        assertThat(api.get("/api/v2/organization/acme/group").json().path("items").get(0).path("members"))
                .extracting(JsonNode::asText).containsExactly("admin");
    }

    private String context(String name, String variable, String value) {
        String id = api.post("/api/v2/context", "{\"name\": \"" + name + "\", \"owner\": {\"slug\": \"gh/acme\"}}")
                .text("id");
        api.put("/api/v2/context/" + id + "/environment-variable/" + variable, "{\"value\": \"" + value + "\"}");
        return id;
    }
}
