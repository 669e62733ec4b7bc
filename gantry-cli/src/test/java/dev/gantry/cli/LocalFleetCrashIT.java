package dev.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server autoscaling local agents, killed with SIGKILL: its agents exit by themselves, and the restarted server
 * launches its new agent under a name no live agent has, neither the dead one's (still registered) nor that of an
 * agent somebody started by hand.
 */
class LocalFleetCrashIT {
    @RegisterExtension
    final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(4);

    static final String FLEET = """
            clusters:
              - name: it
                min: 1
                max: 1
                types:
                  - {name: small, vcpu: 1, memory_gb: 1, disk_gb: 10}
            """;

    /** Kept when the test fails: the processes' logs are in {@code gantry/logs}. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path home;

    @Test
    void local_agents_exit_with_their_killed_server_and_the_restarted_one_gives_no_live_agent_name_twice()
            throws Exception {
        Path fleet = Files.writeString(home.resolve("fleet.yml"), FLEET);
        List<String> options = List.of("--fleet", fleet.toString(), "--executor", "shell");
        // An agent seen in the last three minutes (three heartbeat intervals) counts as live, so the dead agent's
        // registration still does when the server is back, however slowly it starts; idle agents call every second.
        GantryProcesses gantry = new GantryProcesses(home.resolve("gantry"), pg.jdbcUrl(), Map.of(
                "GANTRY_AGENT_HEARTBEAT_INTERVAL", "60s", "GANTRY_AGENT_LEASE_TIMEOUT", "120s",
                "GANTRY_AGENT_POLL_TIMEOUT", "1s"));
        List<ProcessHandle> localAgents = new ArrayList<>();
        try (gantry) {
            gantry.startServer(options);
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(gantry).equals(List.of("it-1")));
            localAgents.addAll(gantry.server().children().toList());
            assertThat(localAgents).as("the server's one local agent").hasSize(1);
            Process byHand = gantry.startAgent("it-2", 1); // the name the server would have given next
            // Registered as the agent sees it, not only in the database: a kill before the answer reaches the agent
            // makes it register again with the restarted server, a second registration of it-2.
            await().atMost(Duration.ofSeconds(60)).until(() -> liveAgentNames().contains("it-2")
                    && Files.readString(gantry.log("agent-it-2-1")).contains("registered with"));

            gantry.killServer();

            await().atMost(Duration.ofSeconds(10)).until(() -> localAgents.stream().noneMatch(ProcessHandle::isAlive));
            assertThat(byHand.isAlive()).as("an agent the server did not start").isTrue();

            gantry.startServer(options);
            await().atMost(Duration.ofSeconds(60)).until(() -> ready(gantry).equals(List.of("it-3")));
            List<String> live = liveAgentNames();
            assertThat(live).as("it-1 is dead but still registered, it-2 is the hand-started one")
                    .containsExactlyInAnyOrder("it-1", "it-2", "it-3");
        } finally {
            localAgents.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** The ids of the instances the server's autoscaler has up. */
    private static List<String> ready(GantryProcesses gantry) {
        List<String> ids = new ArrayList<>();
        for (JsonNode i : gantry.admin().get("/api/v2/insights/fleet").json().path("instances")) {
            if (i.path("state").asText().equals("ready")) {
                ids.add(i.path("id").asText());
            }
        }
        return ids;
    }

    /** The name of every agent registration the server counts as live, once per registration. */
    private List<String> liveAgentNames() throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = pg.dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery(
                     "SELECT name FROM gantry.agent WHERE last_seen_at > now() - interval '180 seconds'")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
