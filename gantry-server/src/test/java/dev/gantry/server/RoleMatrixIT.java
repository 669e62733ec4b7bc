package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.server.auth.Access;
import dev.gantry.server.auth.ApiRoutes;
import dev.gantry.server.auth.Role;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the API's route table, called by a viewer, a member and an admin of organization {@code acme}, on
 * {@code acme}'s things and on organization {@code other}'s: each is let through exactly when its rule says
 * (401 and 403 never when it may; 403 when it may not), and none answers 5xx. The table comes from the server, so a
 * route added later is walked too; a route cannot be added without a rule ({@link ApiRoutes}).
 */
class RoleMatrixIT {
    static final List<Role> ROLES = List.of(Role.VIEWER, Role.MEMBER, Role.ADMIN);

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @TempDir
    Path home;

    TestServer server;
    ApiClient admin;
    final Map<String, Things> things = new HashMap<>();
    final Map<Role, ApiClient> users = new EnumMap<>(Role.class);
    final AtomicInteger serial = new AtomicInteger();

    /** One organization's project, pipeline, workflow, schedule, context and webhook, for the ids in paths. */
    record Things(UUID project, UUID pipeline, UUID workflow, String schedule, String context, String webhook) {
    }

    @BeforeEach
    void start() {
        server = TestServer.start(pg.dataSource(), home);
        admin = server.api();
        for (String organization : List.of("acme", "other")) {
            RunFixtures runs = new RunFixtures(server.jdbi(), organization);
            UUID workflow = runs.workflow("build");
            String schedule = admin.post("/api/v2/project/gh/" + organization + "/app/schedule", """
                    {"name": "nightly", "timetable": {"per-hour": 1, "hours-of-day": [3],
                     "days-of-week": ["MON"]}, "parameters": {"branch": "main"}}""").text("id");
            String context = admin.post("/api/v2/context", "{\"name\": \"deploy\", \"owner\": {\"slug\": \"gh/"
                    + organization + "\"}}").text("id");
            String webhook = admin.post("/api/v2/webhook", webhookBody(runs.projectId)).text("id");
            things.put(organization, new Things(runs.projectId, runs.pipelineId, workflow, schedule, context,
                    webhook));
        }
        admin.post("/api/v2/user", "{\"login\": \"bystander\"}");
        for (Role role : ROLES) {
            String login = role.word() + "-user";
            assertThat(admin.post("/api/v2/user", "{\"login\": \"" + login + "\"}").status()).isEqualTo(201);
            assertThat(admin.put("/api/v2/organization/acme/member/" + login, "{\"role\": \"" + role.word() + "\"}")
                    .status()).isEqualTo(200);
            ApiClient.Answer token = admin.post("/api/v2/user/" + login + "/token", "{\"label\": \"matrix\"}");
            users.put(role, admin.withToken(token.text("token")));
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void every_route_lets_each_role_in_exactly_when_its_rule_says() {
        List<ApiRoutes.Route> routes = new ArrayList<>(server.server().routes());
        // Reads first, then writes, then deletes deepest first: a delete must not take away what a later call needs.
        routes.sort(Comparator.comparing((ApiRoutes.Route r) -> r.method() == ApiRoutes.Method.GET ? 0
                : r.method() == ApiRoutes.Method.DELETE ? 2 : 1).thenComparing(r -> -r.path().length()));
        List<String> wrong = new ArrayList<>();
        int calls = 0;
        for (ApiRoutes.Route route : routes) {
            if (route.rule() instanceof Access.Open) {
                continue;
            }
            for (boolean own : List.of(true, false)) {
                for (Role role : ROLES) {
                    boolean allowed = allowed(route.rule(), role, own);
                    ApiClient.Answer answer = call(users.get(role), route, role, own);
                    calls++;
                    int status = answer.status();
                    boolean ok = allowed ? status != 401 && status != 403 && status < 500 : status == 403;
                    if (!ok) {
                        wrong.add(route.method() + " " + route.path() + " as " + role.word() + " of acme on "
                                + (own ? "acme" : "other") + "'s: " + status + " (" + route.rule().describe()
                                + ") " + answer.body());
                    }
                }
            }
        }
        assertThat(wrong).as("%d calls", calls).isEmpty();
        assertThat(calls).isGreaterThan(300);
    }

    @Test
    void the_admin_token_is_a_site_admin_that_every_route_lets_in() {
        List<String> refused = new ArrayList<>();
        for (ApiRoutes.Route route : server.server().routes()) {
            if (route.method() == ApiRoutes.Method.DELETE || route.rule() instanceof Access.Open) {
                continue;
            }
            ApiClient.Answer answer = call(admin, route, Role.ADMIN, false);
            if (answer.status() == 401 || answer.status() == 403 || answer.status() >= 500) {
                refused.add(route.method() + " " + route.path() + ": " + answer.status() + " " + answer.body());
            }
        }
        assertThat(refused).isEmpty();
        assertThat(admin.get("/api/v2/me").text("login")).isEqualTo("admin");
    }

    static boolean allowed(Access.Rule rule, Role role, boolean own) {
        return switch (rule) {
            case Access.Open open -> true;
            case Access.SignedIn signedIn -> true;
            case Access.SiteAdmin siteAdmin -> false;
            case Access.Self self -> own;
            case Access.InOrganization in -> own && role.atLeast(in.least());
        };
    }

    private ApiClient.Answer call(ApiClient client, ApiRoutes.Route route, Role role, boolean own) {
        String organization = own ? "acme" : "other";
        Things of = things.get(organization);
        String login = route.rule() instanceof Access.Self ? (own ? role.word() + "-user" : "bystander") : "bystander";
        String path = route.path().replace("{vcs}", "gh").replace("{org}", organization).replace("{name}", "app")
                .replace("{workflow_name}", "build")
                .replace("{namespace}", organization).replace("{login}", login).replace("{number}", "1")
                .replace("{job_number}", "1").replace("{node}", "0").replace("<path>", "x.txt")
                .replace("{envvar}", "FOO").replace("{version}", "1.0.0").replace("{queue}", "plan")
                .replace("{pool}", "default").replace("{approval_request_id}", UUID.randomUUID().toString())
                .replace("{group}", "deployers").replace("{restriction_id}", UUID.randomUUID().toString())
                .replace("{delivery_id}", UUID.randomUUID().toString());
        if (path.contains("{id}")) {
            String id = path.startsWith("/api/v2/pipeline/") ? of.pipeline().toString()
                    : path.startsWith("/api/v2/workflow/") ? of.workflow().toString()
                    : path.startsWith("/api/v2/schedule/") ? of.schedule()
                    : path.startsWith("/api/v2/context/") ? of.context()
                    : path.startsWith("/api/v2/webhook/") ? of.webhook() : UUID.randomUUID().toString();
            path = path.replace("{id}", id);
        }
        int n = serial.incrementAndGet();
        String body = switch (route.path()) {
            case "/api/v2/project" -> "{\"name\": \"m" + n + "\", \"organization\": \"" + organization
                    + "\", \"repo_url\": \"https://github.com/" + organization + "/m" + n + ".git\"}";
            case "/api/v2/context" -> "{\"name\": \"c" + n + "\", \"owner\": {\"slug\": \"gh/" + organization
                    + "\"}}";
            case "/api/v2/webhook" -> webhookBody(of.project());
            default -> "{}";
        };
        if (route.path().equals("/api/v2/context") && route.method() == ApiRoutes.Method.GET) {
            path += "?owner-slug=gh/" + organization;
        }
        if (route.path().equals("/api/v2/webhook") && route.method() == ApiRoutes.Method.GET) {
            path += "?scope-id=" + of.project() + "&scope-type=project";
        }
        return switch (route.method()) {
            case GET -> client.get(path);
            case DELETE -> client.delete(path);
            case POST -> client.post(path, body);
            case PUT -> client.put(path, body);
            case PATCH -> client.send("PATCH", path, HttpRequest.BodyPublishers.ofString(body), "Content-Type",
                    "application/json");
        };
    }

    private static String webhookBody(UUID project) {
        return "{\"name\": \"hook\", \"events\": [\"job-completed\"], \"url\": \"https://hooks.example/ci\", "
                + "\"verify-tls\": true, \"signing-secret\": \"k\", \"scope\": {\"id\": \"" + project
                + "\", \"type\": \"project\"}}";
    }

    @Test
    void a_user_token_is_shown_once_marks_its_use_and_stops_working_when_revoked_or_expired() {
        ApiClient viewer = users.get(Role.VIEWER);
        assertThat(viewer.get("/api/v2/me").text("login")).isEqualTo("viewer-user");
        JsonNode tokens = viewer.get("/api/v2/user/viewer-user/token").json().path("items");
        assertThat(tokens).hasSize(1);
        assertThat(tokens.get(0).has("token")).as("never shown again").isFalse();
        assertThat(tokens.get(0).path("last_used_at").isNull()).isFalse();
        assertThat(tokens.get(0).path("expires_at").asText()).isNotEmpty();

        assertThat(viewer.delete("/api/v2/user/viewer-user/token/" + tokens.get(0).path("id").asText()).status())
                .isEqualTo(200);
        assertThat(viewer.get("/api/v2/me").status()).isEqualTo(401);

        String expiring = admin.post("/api/v2/user/bystander/token", "{\"expires_in_days\": 1}").text("token");
        server.jdbi().useHandle(h -> h.execute("UPDATE gantry.user_token SET expires_at = now() - interval '1 s'"));
        assertThat(admin.withToken(expiring).get("/api/v2/me").status()).isEqualTo(401);
    }

    @Test
    void state_changes_and_refusals_are_in_the_audit_log_which_only_admins_read() {
        users.get(Role.MEMBER).post("/api/v2/project/gh/acme/app/pipeline", "{\"branch\": \"main\"}");
        users.get(Role.VIEWER).post("/api/v2/project/gh/acme/app/envvar", "{\"name\": \"X\", \"value\": \"y\"}");

        JsonNode log = users.get(Role.ADMIN).get("/api/v2/organization/acme/audit-log").json().path("items");

        assertThat(log.findValuesAsText("actor")).contains("member-user", "viewer-user");
        JsonNode refused = log.get(0);
        assertThat(refused.path("actor").asText()).isEqualTo("viewer-user");
        assertThat(refused.path("method").asText()).isEqualTo("POST");
        assertThat(refused.path("path").asText()).isEqualTo("/api/v2/project/gh/acme/app/envvar");
        assertThat(refused.path("status").asInt()).isEqualTo(403);
        assertThat(refused.path("remote_address").asText()).isNotEmpty();
        assertThat(users.get(Role.MEMBER).get("/api/v2/organization/acme/audit-log").status()).isEqualTo(403);
        assertThat(admin.get("/api/v2/audit-log").json().path("items").findValuesAsText("actor")).contains("admin");
    }
}
