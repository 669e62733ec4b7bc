package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gantry.db.DatabaseUrl;
import dev.gantry.db.EmbeddedDatabase;
import dev.gantry.queue.ShardHash;
import dev.gantry.server.auth.TokenKind;
import dev.gantry.server.notify.FakeEndpoint;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Notification deliveries on two queue shards ({@code GANTRY_QUEUE_SHARDS}), each an embedded PostgreSQL server of its
 * own beside the main database: a project per shard, each with a webhook to a receiver on 127.0.0.1. Stopping one
 * shard's server mid-run holds up only its project's deliveries; jobs of both projects keep starting and the other
 * project keeps hearing of them; once the shard returns, every delivery arrives, each exactly once.
 */
class ShardedDeliveriesIT {
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(12);
    @TempDir
    Path home;

    final List<ShardServer> shardServers = new ArrayList<>();
    final List<RunFixtures> projects = new ArrayList<>();
    final List<FakeEndpoint> endpoints = new ArrayList<>();
    TestServer server;
    AgentClient agent;
    String agentId;

    /** An embedded PostgreSQL server that stops and starts again on the same port with the same data. */
    static final class ShardServer {
        private final Path data;
        private final int port;
        private EmbeddedDatabase running;

        ShardServer(Path data) {
            this.data = data;
            running = EmbeddedDatabase.start(data, 0, Duration.ofSeconds(60), EmbeddedDatabase.Durability.THROWAWAY);
            port = running.port();
        }

        DatabaseUrl url() {
            return running.url("postgres");
        }

        void stop() {
            running.close();
        }

        void start() {
            running = EmbeddedDatabase.start(data, port, Duration.ofSeconds(60),
                    EmbeddedDatabase.Durability.THROWAWAY);
        }

        void close() {
            running.close();
        }
    }

    @BeforeEach
    void start() throws Exception {
        for (int i = 0; i < 2; i++) {
            shardServers.add(new ShardServer(home.resolve("shard-" + i)));
        }
        server = TestServer.start(pg.dataSource(), home.resolve("server"), OutboundWebhooksIT.settings()
                .withQueueShards(shardServers.stream().map(ShardServer::url).toList()));
        agent = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        agentId = agent.registered("host-1");
        // A project on each shard, as the frozen routing places them by id.
        for (int shard = 0; shard < 2; shard++) {
            RunFixtures project;
            do {
                project = new RunFixtures(server.jdbi(), "org-" + UUID.randomUUID().toString().substring(0, 8));
            } while (ShardHash.shardOf(project.projectId.toString(), 2) != shard);
            projects.add(project);
            FakeEndpoint endpoint = new FakeEndpoint(FakeEndpoint.Mode.OK);
            endpoints.add(endpoint);
            ApiClient.Answer created = server.api().post("/api/v2/webhook", """
                    {"name": "dashboard", "events": ["workflow-completed", "job-completed"], "url": "%s",
                     "verify-tls": true, "signing-secret": "s3cret-s3cret",
                     "scope": {"id": "%s", "type": "project"}}""".formatted(endpoint.url("/hook"),
                    project.projectId));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
        }
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        endpoints.forEach(FakeEndpoint::close);
        shardServers.forEach(ShardServer::close);
    }

    @Test
    void a_stopped_shard_holds_up_only_its_projects_deliveries_and_each_arrives_once_when_it_returns() {
        runRound(0);
        runRound(1);
        await().atMost(Duration.ofSeconds(15)).until(() -> allDelivered(0) && allDelivered(1));

        shardServers.get(1).stop();
        int heardBefore = endpoints.get(1).accepted().size();
        for (int round = 2; round < 5; round++) {
            runRound(round); // jobs of both projects start and finish: the orchestration is on the main database
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> allDelivered(0));
        assertThat(pendingDeliveries(1)).as("shard 1's deliveries wait for it").isPositive();
        assertThat(waitingInRelay(1)).as("in the main database's relay").isPositive();
        assertThat(waitingInRelay(0)).isZero();
        assertThat(endpoints.get(1).accepted()).hasSize(heardBefore);

        shardServers.get(1).start();
        await().atMost(Duration.ofSeconds(30)).until(() -> allDelivered(1));
        assertThat(server.count("gantry.notify_relay")).isZero();
        for (int p = 0; p < 2; p++) {
            List<String> heard = endpoints.get(p).accepted().stream().map(r -> r.header("gantry-delivery-id"))
                    .toList();
            assertThat(heard).as("each delivery once").doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(deliveryIds(p));
            assertThat(heard).as("a job and a workflow completed per round").hasSize(2 * 5);
        }
        String metrics = server.api().get("/metrics").body();
        for (int shard = 0; shard < 2; shard++) {
            assertThat(metrics).contains("gantry_queue_shard_messages_total{event=\"completed\",queue=\"notify-webhook\","
                    + "shard=\"" + shard + "\"}");
        }
    }

    private long waitingInRelay(int shard) {
        return server.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM gantry.notify_relay WHERE shard = ?")
                .bind(0, shard).mapTo(Long.class).one());
    }

    /** A workflow of one job in each project, started and finished by the agent. */
    private void runRound(int round) {
        for (RunFixtures project : projects) {
            project.job(project.workflow("build-" + round), "test").insert();
        }
        for (int i = 0; i < projects.size(); i++) {
            AgentClient.Claimed task = agent.claimed(agentId);
            assertThat(agent.complete(task, task.lease(), "success").status()).isEqualTo(200);
        }
    }

    private boolean allDelivered(int project) {
        return pendingDeliveries(project) == 0
                && new HashSet<>(endpoints.get(project).accepted().stream()
                .map(r -> r.header("gantry-delivery-id")).toList()).containsAll(deliveryIds(project));
    }

    private long pendingDeliveries(int project) {
        return server.jdbi().withHandle(h -> h.createQuery("""
                        SELECT count(*) FROM gantry.notify_delivery d JOIN gantry.notify_event e ON e.id = d.event_id
                        WHERE e.project_id = ? AND d.state <> 'delivered'""")
                .bind(0, projects.get(project).projectId).mapTo(Long.class).one());
    }

    private List<String> deliveryIds(int project) {
        return server.jdbi().withHandle(h -> h.createQuery("""
                        SELECT d.id::text FROM gantry.notify_delivery d JOIN gantry.notify_event e ON e.id = d.event_id
                        WHERE e.project_id = ?""")
                .bind(0, projects.get(project).projectId).mapTo(String.class).list());
    }
}
