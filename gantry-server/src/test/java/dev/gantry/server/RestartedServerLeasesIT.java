package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a restarted server does with the leases of running tasks. Alone on its database it gives them a fresh lease:
 * no agent could renew one while it was down. Beside a server that kept sweeping it leaves them as they are, so an
 * agent that died meanwhile is found one lease after its last heartbeat, not two leases after the restart.
 */
class RestartedServerLeasesIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(32);

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final ServerSettings SETTINGS = new ServerSettings(0, AgentSettings.defaults()
            .withHeartbeatInterval(Duration.ofMillis(500)).withLeaseTimeout(LEASE)
            .withPollTimeout(Duration.ofMillis(300)));

    @TempDir
    Path homes;

    TestServer first;
    TestServer second;

    /** Stops the servers and empties the database they migrated (it has no tables before the first start). */
    @AfterEach
    void stop() {
        for (TestServer server : new TestServer[]{first, second}) {
            if (server != null) {
                server.close();
            }
        }
        pg.truncate("gantry.project", "gantry.agent", "gantry_queue.message", "gantry.lease_sweep");
    }

    @Test
    void a_server_restarted_alone_gives_running_tasks_a_fresh_lease() throws Exception {
        first = TestServer.start(pg.dataSource(), homes.resolve("first"), SETTINGS);
        AgentClient agent = new AgentClient(first.api().anonymous(), first.token(TokenKind.AGENT));
        RunFixtures runs = new RunFixtures(first.jdbi());
        UUID job = runs.job(runs.workflow("build"), "test").insert();
        AgentClient.Claimed task = agent.claimed(agent.registered("host-1"));
        assertThat(agent.heartbeat(task, task.lease()).status()).isEqualTo(200);
        first.close();
        // Down longer than the lease: no agent could renew it meanwhile.
        first.jdbi().useHandle(h -> h.execute("UPDATE gantry.job_task SET lease_until = now() - interval '1 second'"));

        first = TestServer.start(pg.dataSource(), homes.resolve("first"), SETTINGS);

        await().atMost(Duration.ofSeconds(5)).until(() -> leaseUntil(first, job).isAfter(OffsetDateTime.now()));
        Thread.sleep(LEASE.toMillis()); // sweeps that would give it up if its lease had not been renewed
        assertThat(runs.taskStatus(job, 0)).isEqualTo("running");
    }

    @Test
    void a_server_restarted_beside_a_sweeping_one_leaves_leases_as_they_are() throws IOException {
        first = TestServer.start(pg.dataSource(), homes.resolve("first"), SETTINGS);
        second = TestServer.start(pg.dataSource(), homeSharingTokens("second"), SETTINGS);
        AgentClient viaFirst = new AgentClient(first.api().anonymous(), first.token(TokenKind.AGENT));
        AgentClient viaSecond = viaFirst.through(second.api().anonymous());
        RunFixtures runs = new RunFixtures(first.jdbi());
        UUID job = runs.job(runs.workflow("build"), "test").insert();
        AgentClient.Claimed task = viaFirst.claimed(viaFirst.registered("host-1"));
        first.close();

        // The agent's last heartbeat, through the server that stayed up; then the agent dies.
        assertThat(viaSecond.heartbeat(task, task.lease()).status()).isEqualTo(200);
        long lastHeartbeat = System.nanoTime();
        first = TestServer.start(pg.dataSource(), homes.resolve("first"), SETTINGS);

        await().atMost(Duration.ofSeconds(15)).until(() -> runs.taskStatus(job, 0).equals("infrastructure_fail"));
        Duration found = Duration.ofNanos(System.nanoTime() - lastHeartbeat);
        assertThat(found).as("given up about a lease after the last heartbeat (a renewal at the restart would "
                + "have kept it two leases from then)").isLessThan(LEASE.multipliedBy(2));
    }

    @Test
    void a_sweep_forgets_servers_silent_for_a_day() throws IOException {
        first = TestServer.start(pg.dataSource(), homes.resolve("first"), SETTINGS);
        first.jdbi().useHandle(h -> h.execute("INSERT INTO gantry.lease_sweep (server, swept_at) VALUES "
                + "('gone-for-two-days', now() - interval '2 days'), ('gone-an-hour', now() - interval '1 hour')"));

        await().atMost(Duration.ofSeconds(5)).until(() -> sweptServers(first).size() == 2);
        assertThat(sweptServers(first)).contains("gone-an-hour").doesNotContain("gone-for-two-days");
    }

    private static List<String> sweptServers(TestServer server) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT server FROM gantry.lease_sweep")
                .mapTo(String.class).list());
    }

    /** A home for a second server of the database, with the first's token and master key files. */
    private Path homeSharingTokens(String name) throws IOException {
        Path home = Files.createDirectories(homes.resolve(name));
        for (String file : List.of(TokenKind.ADMIN.fileName(), TokenKind.AGENT.fileName(),
                GantryServer.MASTER_KEY_FILE)) {
            Files.copy(homes.resolve("first").resolve(file), home.resolve(file));
        }
        return home;
    }

    private static OffsetDateTime leaseUntil(TestServer server, UUID job) {
        return server.jdbi().withHandle(h -> h.createQuery(
                "SELECT lease_until FROM gantry.job_task WHERE job_id = ?").bind(0, job)
                .mapTo(OffsetDateTime.class).one());
    }
}
