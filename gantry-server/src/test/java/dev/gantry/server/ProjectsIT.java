package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Projects over HTTP: create, read, list in pages, and every way a request can be refused without leaving a trace. */
class ProjectsIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    @TempDir
    static Path home;

    static TestServer server;
    static ApiClient api;

    @BeforeAll
    static void start() {
        server = TestServer.start(pg.dataSource(), home);
        api = server.api();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void clean() {
        pg.truncate("gantry.project");
    }

    @Test
    void creating_a_project_answers_201_with_circleci_field_names() {
        ApiClient.Answer created = api.post("/api/v2/project",
                "{\"name\": \"app\", \"repo_url\": \"https://github.com/acme/app.git\"}");

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.header("Content-Type")).startsWith("application/json");
        JsonNode project = created.json();
        assertThat(UUID.fromString(project.get("id").asText())).isNotNull();
        assertThat(project.get("slug").asText()).isEqualTo("gantry/acme/app");
        assertThat(project.get("name").asText()).isEqualTo("app");
        assertThat(project.get("organization_name").asText()).isEqualTo("acme");
        assertThat(project.get("vcs_url").asText()).isEqualTo("https://github.com/acme/app.git");
        assertThat(project.get("created_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    }

    @Test
    void a_project_reads_back_by_its_slug_as_it_was_created() {
        JsonNode created = server.createProject("acme", "app").json();

        ApiClient.Answer read = api.get("/api/v2/project/gantry/acme/app");

        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json()).isEqualTo(created);
    }

    @Test
    void a_local_directory_makes_a_project_of_the_organization_local(@TempDir Path repository) {
        ApiClient.Answer created = api.post("/api/v2/project",
                "{\"name\": \"tools\", \"repo_url\": \"" + repository + "\"}");

        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.text("slug")).isEqualTo("gantry/local/tools");
        assertThat(created.text("vcs_url")).isEqualTo(repository.toString());
    }

    @Test
    void a_local_path_that_is_not_a_directory_is_400(@TempDir Path directory) throws Exception {
        Path file = Files.writeString(directory.resolve("file"), "not a repository");
        for (Path path : List.of(directory.resolve("missing"), file)) {
            ApiClient.Answer refused = api.post("/api/v2/project", "{\"name\": \"x\", \"repo_url\": \"" + path + "\"}");

            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.text("field")).isEqualTo("repo_url");
            assertThat(refused.text("message")).contains("not a directory");
        }
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void a_second_project_with_the_same_slug_is_409_and_the_first_stays() {
        server.createProject("acme", "app");

        ApiClient.Answer duplicate = api.post("/api/v2/project",
                "{\"name\": \"app\", \"repo_url\": \"git@gitlab.com:acme/app.git\"}");

        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(duplicate.text("message")).contains("gantry/acme/app");
        assertThat(api.get("/api/v2/project/gantry/acme/app").text("vcs_url"))
                .isEqualTo("https://github.com/acme/app.git");
        assertThat(server.count("gantry.project")).isOne();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/v2/project/gantry/acme/nope", "/api/v2/project/gh/acme/nope",
        "/api/v2/project/svn/acme/app", "/api/v2/project/gantry/acme/bad%20name"})
    void an_unknown_project_is_a_404_in_json(String path) {
        server.createProject("acme", "app");

        ApiClient.Answer answer = api.get(path);

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.text("message")).startsWith("no project");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gh", "github", "gl", "gitlab", "bb", "bitbucket"})
    void circleci_s_slugs_name_the_same_project(String vcs) {
        server.createProject("acme", "app");

        ApiClient.Answer answer = api.get("/api/v2/project/" + vcs + "/acme/app");

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.text("slug")).isEqualTo("gantry/acme/app");
        assertThat(api.post("/api/v2/project/" + vcs + "/acme/app/pipeline", "{\"branch\": \"main\"}").status())
                .isEqualTo(201);
    }

    @Test
    void circleci_s_id_slugs_name_a_project_by_its_organization_and_project_ids() {
        JsonNode project = server.createProject("acme", "app").json();
        String byIds = "/api/v2/project/circleci/" + project.get("organization_id").asText() + "/"
                + project.get("id").asText();

        assertThat(api.get(byIds).text("slug")).isEqualTo("gantry/acme/app");
        assertThat(api.post(byIds + "/pipeline", "{\"branch\": \"main\"}").status()).isEqualTo(201);
        assertThat(api.get("/api/v2/project/circleci/" + UUID.randomUUID() + "/" + project.get("id").asText())
                .status()).as("another organization").isEqualTo(404);
        assertThat(api.get("/api/v2/project/circleci/acme/app").status()).isEqualTo(404);
    }

    @Test
    void the_list_pages_through_25_projects_20_at_a_time_in_slug_order() {
        List<String> slugs = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            String organization = i % 2 == 0 ? "beta" : "alpha";
            String name = "p" + (24 - i);
            server.createProject(organization, name);
            slugs.add("gantry/" + organization + "/" + name);
        }
        slugs.sort(Comparator.comparing((String slug) -> slug.split("/")[1]).thenComparing(slug -> slug.split("/")[2]));

        ApiClient.Answer first = api.get("/api/v2/project");
        String token = first.text("next_page_token");
        ApiClient.Answer second = api.get("/api/v2/project?page-token=" + token);

        assertThat(first.status()).isEqualTo(200);
        assertThat(slugsOf(first)).containsExactlyElementsOf(slugs.subList(0, 20));
        assertThat(token).matches("[A-Za-z0-9_-]+");
        assertThat(second.status()).isEqualTo(200);
        assertThat(slugsOf(second)).containsExactlyElementsOf(slugs.subList(20, 25));
        assertThat(second.json().get("next_page_token").isNull()).isTrue();
    }

    @Test
    void a_project_created_between_pages_shows_up_in_its_place_without_shifting_the_pages() {
        for (int i = 0; i < 21; i++) {
            server.createProject("acme", String.format("p%02d", i));
        }
        ApiClient.Answer first = api.get("/api/v2/project");
        server.createProject("acme", "a-first");
        server.createProject("acme", "zz-last");

        ApiClient.Answer second = api.get("/api/v2/project?page-token=" + first.text("next_page_token"));

        assertThat(slugsOf(second)).containsExactly("gantry/acme/p20", "gantry/acme/zz-last");
    }

    @Test
    void an_empty_list_has_no_next_page() {
        ApiClient.Answer list = api.get("/api/v2/project");

        assertThat(list.status()).isEqualTo(200);
        assertThat(list.json().get("items").isEmpty()).isTrue();
        assertThat(list.json().get("next_page_token").isNull()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"nonsense!", "e30", "WyJhIl0", "WyIuLiIsImIiXQ"})
    void a_page_token_the_list_did_not_hand_out_is_400(String token) {
        // e30 is {}, WyJhIl0 ["a"], WyIuLiIsImIiXQ ["..","b"]
        ApiClient.Answer answer = api.get("/api/v2/project?page-token=" + token);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.text("field")).isEqualTo("page-token");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "{                                                     | -",
        "[]                                                    | -",
        "{\"repo_url\": \"https://github.com/acme/app\"}       | name",
        "{\"name\": \"app\"}                                   | repo_url",
        "{\"name\": \"a b\", \"repo_url\": \"/tmp\"}           | name",
        "{\"name\": \"app\", \"repo_url\": \"relative/dir\"}   | repo_url",
        "{\"name\": \"app\", \"repo_url\": \"/tmp\", \"x\": 1} | x",
        "{\"name\": [\"app\"], \"repo_url\": \"/tmp\"}         | name",
    })
    void a_bad_body_is_400_naming_the_field_and_creates_nothing(String body, String field) {
        ApiClient.Answer refused = api.post("/api/v2/project", body);

        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.text("field")).isEqualTo(field);
        assertThat(refused.text("message")).isNotBlank();
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void a_body_over_1_mib_is_413_and_creates_nothing() {
        String oversized = "{\"name\": \"app\", \"repo_url\": \"/tmp\", \"padding\": \"" + "x".repeat(1 << 20) + "\"}";

        ApiClient.Answer declared = api.post("/api/v2/project", oversized);
        // A body from a stream goes out chunked, without Content-Length: the server must count what it reads.
        HttpRequest.BodyPublisher stream = HttpRequest.BodyPublishers.ofInputStream(() ->
                new ByteArrayInputStream(oversized.getBytes(StandardCharsets.UTF_8)));
        ApiClient.Answer chunked = api.send("POST", "/api/v2/project", stream, "Content-Type", "application/json");

        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.text("message")).contains("1048576");
        assertThat(chunked.status()).isEqualTo(413);
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void a_body_of_exactly_1_mib_is_read() {
        String prefix = "{\"repo_url\": \"/tmp\", \"name\": \"";
        String body = prefix + "x".repeat((1 << 20) - prefix.length() - 2) + "\"}";

        ApiClient.Answer answer = api.post("/api/v2/project", body);

        assertThat(body.length()).isEqualTo(1 << 20);
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.text("field")).isEqualTo("name");
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "application/x-www-form-urlencoded"})
    void a_body_that_is_not_declared_json_is_415_and_creates_nothing(String contentType) {
        ApiClient.Answer refused = api.post("/api/v2/project", "{\"name\": \"app\", \"repo_url\": \"/tmp\"}",
                "Content-Type", contentType);

        assertThat(refused.status()).isEqualTo(415);
        assertThat(refused.text("message")).contains("application/json");
        assertThat(server.count("gantry.project")).isZero();
    }

    @Test
    void unknown_routes_are_404_and_wrong_methods_405_both_in_json() {
        ApiClient.Answer unknownApi = api.get("/api/v2/projects");
        ApiClient.Answer unknownRoot = api.anonymous().get("/nothing");
        ApiClient.Answer wrongMethod = api.send("DELETE", "/api/v2/project", HttpRequest.BodyPublishers.noBody());

        assertThat(unknownApi.status()).isEqualTo(404);
        assertThat(unknownApi.text("message")).contains("GET /api/v2/projects");
        assertThat(unknownRoot.status()).isEqualTo(404);
        assertThat(unknownRoot.text("message")).contains("GET /nothing");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.text("message")).contains("DELETE");
    }

    @Test
    void a_database_error_that_is_not_an_outage_is_500_with_an_error_id_and_nothing_of_the_cause() {
        Jdbi jdbi = Jdbi.create(pg.dataSource());
        jdbi.useHandle(h -> h.execute("ALTER TABLE gantry.project RENAME TO project_away"));
        ApiClient.Answer answer;
        try {
            answer = api.get("/api/v2/project");
        } finally {
            jdbi.useHandle(h -> h.execute("ALTER TABLE gantry.project_away RENAME TO project"));
        }

        assertThat(answer.status()).isEqualTo(500);
        assertThat(UUID.fromString(answer.text("error_id"))).isNotNull();
        assertThat(answer.text("message")).contains(answer.text("error_id"));
        assertThat(answer.body()).doesNotContain("project", "SQL", "relation", "Exception", "at dev.gantry");
    }

    @Test
    void settings_read_back_and_change_only_what_a_patch_names() {
        server.createProject("acme", "app");
        String settings = "/api/v2/project/gantry/acme/app/settings";
        assertThat(api.get(settings).json().toString()).isEqualTo(
                "{\"advanced\":{\"autocancel_builds\":false},\"webhook\":{\"secret_set\":false}}");

        ApiClient.Answer patched = api.send("PATCH", settings, HttpRequest.BodyPublishers.ofString(
                "{\"advanced\": {\"autocancel_builds\": true}}"), "Content-Type", "application/json");
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);
        assertThat(patched.json().at("/advanced/autocancel_builds").asBoolean()).isTrue();
        ApiClient.Answer unchanged = api.send("PATCH", settings, HttpRequest.BodyPublishers.ofString(
                "{\"advanced\": {}}"), "Content-Type", "application/json");
        assertThat(unchanged.json().at("/advanced/autocancel_builds").asBoolean()).isTrue();

        ApiClient.Answer wrongType = api.send("PATCH", settings, HttpRequest.BodyPublishers.ofString(
                "{\"advanced\": {\"autocancel_builds\": \"yes\"}}"), "Content-Type", "application/json");
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.text("message")).contains("autocancel_builds");
        ApiClient.Answer unknownField = api.send("PATCH", settings, HttpRequest.BodyPublishers.ofString(
                "{\"advanced\": {\"build_fork_prs\": true}}"), "Content-Type", "application/json");
        assertThat(unknownField.status()).isEqualTo(400);
        assertThat(api.get("/api/v2/project/gantry/acme/other/settings").status()).isEqualTo(404);
    }

    private static List<String> slugsOf(ApiClient.Answer list) {
        List<String> slugs = new ArrayList<>();
        list.json().get("items").forEach(item -> slugs.add(item.get("slug").asText()));
        return slugs;
    }
}
