package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.auth.TokenKind;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents prove who they are: a registration token registers only in the pools it names and stops working when
 * revoked; registering answers a credential of the agent's own, without which nothing else is answered; with it an
 * agent claims only for itself and touches only the tasks leased to it.
 */
class AgentIdentitySecurityIT {
    static final String PREFIX = AgentClient.PREFIX;

    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(8);
    @TempDir
    Path home;

    TestServer server;

    @BeforeEach
    void start() {
        server = TestServer.start(pg.dataSource(), home);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void an_organization_s_registration_token_registers_only_in_its_pools_until_revoked() {
        ApiClient.Answer issued = server.api().post("/api/v2/organization/acme/agent-token",
                "{\"pools\": [\"macos\"], \"label\": \"mac minis\"}");
        assertThat(issued.status()).as(issued.body()).isEqualTo(201);
        AgentClient macs = new AgentClient(server.api().anonymous(), issued.text("token"));

        assertThat(macs.registeredInPool("mini-1", "macos")).isNotBlank();
        ApiClient.Answer elsewhere = macs.post(PREFIX + "/register",
                "{\"name\": \"sneaky\", \"cpu\": 4, \"memory_mb\": 8192, \"pool\": \"default\"}");
        assertThat(elsewhere.status()).isEqualTo(403);
        assertThat(elsewhere.text("message")).contains("pool macos, not default");
        assertThat(server.api().get("/api/v2/organization/acme/agent-token").body())
                .contains("mac minis").doesNotContain(issued.text("token"));

        assertThat(server.api().delete("/api/v2/organization/acme/agent-token/" + issued.text("id")).status())
                .isEqualTo(200);
        assertThat(macs.post(PREFIX + "/register", "{\"name\": \"mini-2\", \"cpu\": 4, \"memory_mb\": 8192, "
                + "\"pool\": \"macos\"}").status()).isEqualTo(401);
    }

    @Test
    void an_agent_claims_for_itself_only_and_touches_only_its_own_tasks() {
        RunFixtures runs = new RunFixtures(server.jdbi());
        runs.job(runs.workflow("build"), "test").insert();
        AgentClient agents = new AgentClient(server.api().anonymous(), server.token(TokenKind.AGENT));
        String first = agents.registered("host-1");
        String second = agents.registered("host-2");
        AgentClient.Claimed task = agents.claimed(first);

        ApiClient.Answer claimAsOther = server.api().anonymous().post(PREFIX + "/agents/" + first + "/claim",
                "{\"free_cpu\": 4, \"free_memory_mb\": 8192}", "Authorization", "Bearer " + agents.credential(second));
        ApiClient.Answer heartbeatAsOther = server.api().anonymous().send("POST", task.path() + "/heartbeat",
                HttpRequest.BodyPublishers.noBody(), "Authorization",
                "Bearer " + agents.credential(second), "Gantry-Lease", task.lease());
        ApiClient.Answer withRegistrationToken = server.api().anonymous().send("POST", task.path() + "/heartbeat",
                HttpRequest.BodyPublishers.noBody(), "Authorization",
                "Bearer " + server.token(TokenKind.AGENT), "Gantry-Lease", task.lease());

        assertThat(claimAsOther.status()).isEqualTo(403);
        assertThat(heartbeatAsOther.status()).isEqualTo(403);
        assertThat(heartbeatAsOther.text("message")).contains("leased to another agent");
        assertThat(withRegistrationToken.status()).isEqualTo(401);
        assertThat(agents.heartbeat(task, task.lease()).status()).as("its own agent").isEqualTo(200);
    }
}
