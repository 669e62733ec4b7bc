package dev.gantry.server;

import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.project.RepositoryPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.jdbi.v3.core.Jdbi;

/**
 * A {@link GantryServer} on a free port, on a test database, with its token files in a test directory; and a client
 * that holds its admin token.
 */
final class TestServer implements AutoCloseable {
    private final GantryServer server;
    private final Jdbi jdbi;
    private final ApiClient api;

    private TestServer(GantryServer server, DataSource dataSource) {
        this.server = server;
        this.jdbi = Jdbi.create(dataSource);
        this.api = new ApiClient(server.url(), token(TokenKind.ADMIN));
    }

    /** A server on port 0 that fetches from any repository (its tests' repositories are directories). */
    static TestServer start(DataSource dataSource, Path home) {
        return start(dataSource, home, new ServerSettings(0).withRepositories(RepositoryPolicy.ANYTHING));
    }

    /** A server with {@code settings}, e.g. short agent lease timeouts; give it port 0. */
    static TestServer start(DataSource dataSource, Path home, ServerSettings settings) {
        return new TestServer(GantryServer.start(settings, dataSource, home), dataSource);
    }

    /** A server with {@code settings} that autoscales {@code fleet}. */
    static TestServer startAutoscaling(DataSource dataSource, Path home, ServerSettings settings,
                                       dev.gantry.server.fleet.Autoscaling.Setup fleet) {
        return new TestServer(GantryServer.start(settings, dataSource, home, fleet), dataSource);
    }

    Jdbi jdbi() {
        return jdbi;
    }

    /** A server that leaves the plan messages in the queue, for tests that claim them themselves. */
    static TestServer startWithoutPlanBuilder(DataSource dataSource, Path home) {
        return startWithoutPlanBuilder(dataSource, home, new ServerSettings(0));
    }

    /** As {@link #startWithoutPlanBuilder(DataSource, Path)}, with {@code settings}; give it port 0. */
    static TestServer startWithoutPlanBuilder(DataSource dataSource, Path home, ServerSettings settings) {
        return new TestServer(GantryServer.startWithoutPlanBuilder(settings.withRepositories(
                RepositoryPolicy.ANYTHING), dataSource, home), dataSource);
    }

    GantryServer server() {
        return server;
    }

    /** A client with the admin token. */
    ApiClient api() {
        return api;
    }

    /** The token in the server's file for {@code kind}. */
    String token(TokenKind kind) {
        try {
            return Files.readString(server.tokenFile(kind)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rows in {@code table}, a fixed name from the test. */
    long count(String table) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM " + table).mapTo(Long.class).one());
    }

    /** Waits until the ledger's workers have counted every charge into its month (docs/usage.md, its bulkhead). */
    void awaitUsageCounted() {
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> count("gantry.usage_charge WHERE counted_at IS NULL") == 0);
    }

    /** Creates the project {@code organization/name} with a repository URL on GitHub; fails unless it answers 201. */
    ApiClient.Answer createProject(String organization, String name) {
        ApiClient.Answer created = api.post("/api/v2/project", "{\"name\": \"" + name + "\", \"repo_url\": "
                + "\"https://github.com/" + organization + "/" + name + ".git\"}");
        if (created.status() != 201) {
            throw new AssertionError("creating " + organization + "/" + name + ": " + created);
        }
        return created;
    }

    /** Creates the project {@code organization/name} on the repository {@code repoUrl}; fails unless it answers 201. */
    ApiClient.Answer createProject(String organization, String name, String repoUrl) {
        ApiClient.Answer created = api.post("/api/v2/project", "{\"name\": \"" + name + "\", \"organization\": \""
                + organization + "\", \"repo_url\": \"" + repoUrl + "\"}");
        if (created.status() != 201) {
            throw new AssertionError("creating " + organization + "/" + name + ": " + created);
        }
        return created;
    }

    @Override
    public void close() {
        server.close();
    }
}
