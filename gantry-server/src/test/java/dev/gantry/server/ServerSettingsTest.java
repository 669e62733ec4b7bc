package dev.gantry.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.db.DatabaseUrl;
import dev.gantry.server.agent.AgentSettings;
import dev.gantry.server.retention.RetentionSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServerSettingsTest {
    @Test
    void without_gantry_port_the_port_is_8080() {
        assertThat(ServerSettings.fromEnvironment(Map.of())).isEqualTo(new ServerSettings(8080));
    }

    @Test
    void gantry_port_sets_the_port_and_0_means_any_free_port() {
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_PORT", "9090")).port()).isEqualTo(9090);
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_PORT", " 0 ")).port()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"http", "-1", "65536", "80.5", "1e3"})
    void a_bad_gantry_port_names_the_variable_and_the_rule(String value) {
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_PORT", value)))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_PORT must be 0 (any free port) or an integer from 1 to 65535, got '" + value + "'");
    }

    @Test
    void an_empty_gantry_port_is_an_error_not_the_default() {
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_PORT", " ")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("empty");
    }

    @Test
    void the_agent_timings_come_from_their_variables_beside_the_port() {
        ServerSettings settings = ServerSettings.fromEnvironment(Map.of("GANTRY_PORT", "9090",
                "GANTRY_AGENT_LEASE_TIMEOUT", "45s"));

        assertThat(settings.port()).isEqualTo(9090);
        assertThat(settings.agent()).isEqualTo(AgentSettings.defaults().withLeaseTimeout(Duration.ofSeconds(45)));
        assertThat(ServerSettings.defaults().agent()).isEqualTo(AgentSettings.defaults());
    }

    @Test
    void retention_is_15_days_for_caches_and_workspaces_and_30_for_artifacts_and_notifications_unless_set() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).retention()).isEqualTo(new RetentionSettings(
                Duration.ofDays(15), Duration.ofDays(15), Duration.ofDays(30), Duration.ofDays(30)));
        ServerSettings settings = ServerSettings.fromEnvironment(Map.of("GANTRY_RETENTION_CACHES", "7d",
                "GANTRY_RETENTION_WORKSPACES", "2d", "GANTRY_RETENTION_ARTIFACTS", "PT36H",
                "GANTRY_RETENTION_NOTIFICATIONS", "90d"));
        assertThat(settings.retention()).isEqualTo(new RetentionSettings(Duration.ofDays(7), Duration.ofDays(2),
                Duration.ofHours(36), Duration.ofDays(90)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"30", "30 days", "10m", "3651d", "-1d"})
    void a_bad_retention_names_the_variable_and_the_rule(String value) {
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_RETENTION_ARTIFACTS", value)))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_RETENTION_ARTIFACTS must be a duration like 12h or 30d, from 1h to 3650d, got '"
                        + value + "'");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_RETENTION_CACHES", "")))
                .hasMessage("GANTRY_RETENTION_CACHES is set but empty; unset it to use the default 15d");
    }

    @Test
    void gantry_queue_shards_lists_databases_in_routing_order_and_none_means_the_main_database() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).queueShards()).isEmpty();
        ServerSettings settings = ServerSettings.fromEnvironment(Map.of("GANTRY_QUEUE_SHARDS",
                "postgres://gantry:secret@shard-a:5432/gantry, jdbc:postgresql://shard-b:5433/gantry"));
        assertThat(settings.queueShards()).extracting(DatabaseUrl::jdbcUrl).containsExactly(
                "jdbc:postgresql://shard-a:5432/gantry", "jdbc:postgresql://shard-b:5433/gantry");
    }

    @Test
    void a_queue_shard_url_that_is_malformed_empty_or_named_twice_is_an_error_without_the_password() {
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_QUEUE_SHARDS",
                "postgres://gantry:secret@shard-a/gantry,mysql://gantry:secret@shard-b/gantry")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessageStartingWith("GANTRY_QUEUE_SHARDS must be distinct PostgreSQL URLs")
                .hasMessageContaining("URL 2:").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_QUEUE_SHARDS", " ")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_QUEUE_SHARDS",
                "jdbc:postgresql://shard-a/gantry,jdbc:postgresql://shard-a/gantry")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("named twice");
    }

    @Test
    void a_port_out_of_range_cannot_be_set_in_code_either() {
        assertThatThrownBy(() -> ServerSettings.defaults().withPort(70000))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void the_server_listens_on_the_loopback_interface_unless_gantry_host_says_otherwise() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).host()).isEqualTo("127.0.0.1");
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_HOST", "0.0.0.0")).host()).isEqualTo("0.0.0.0");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_HOST", "no such host!")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_HOST must be an IP address or a host name, e.g. 0.0.0.0 for every interface, got "
                        + "'no such host!'");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_HOST", " ")))
                .hasMessageContaining("GANTRY_HOST is set but empty");
    }

    @Test
    void a_client_on_this_machine_reaches_a_server_on_every_interface_through_the_loopback_address() {
        assertThat(ServerSettings.localUrl("0.0.0.0", 8080)).hasToString("http://127.0.0.1:8080");
        assertThat(ServerSettings.localUrl("::", 8080)).hasToString("http://127.0.0.1:8080");
        assertThat(ServerSettings.localUrl("10.0.0.5", 80)).hasToString("http://10.0.0.5:80");
        assertThat(ServerSettings.localUrl("::1", 80)).hasToString("http://[::1]:80");
    }

    @Test
    void https_needs_its_port_certificate_and_key_together() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).tls()).isNull();
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_HTTPS_PORT", "8443", "GANTRY_TLS_CERT", "/etc/g/c.pem",
                "GANTRY_TLS_KEY", "/etc/g/k.pem")).tls())
                .isEqualTo(new TlsSettings(8443, Path.of("/etc/g/c.pem"), Path.of("/etc/g/k.pem")));
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_HTTPS_PORT", "8443")))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("HTTPS needs GANTRY_HTTPS_PORT, GANTRY_TLS_CERT, GANTRY_TLS_KEY together; "
                        + "GANTRY_HTTPS_PORT is set without the others");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_HTTPS_PORT", "https",
                "GANTRY_TLS_CERT", "c.pem", "GANTRY_TLS_KEY", "k.pem")))
                .isInstanceOf(InvalidServerSettingException.class).hasMessageContaining("GANTRY_HTTPS_PORT must be 0");
    }

    @Test
    void the_external_url_is_where_the_server_listens_unless_gantry_external_url_names_one() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).externalUrl()).isNull();
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_EXTERNAL_URL", " https://ci.example.com/gantry "))
                .externalUrl()).hasToString("https://ci.example.com/gantry");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ci.example.com", "ftp://ci.example.com", "https://user:pw@ci.example.com",
        "https://ci.example.com/?x=1", "https://ci.example.com/#top", "https:///path", "http://exa mple"})
    void a_bad_gantry_external_url_names_the_variable_and_the_rule(String value) {
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_EXTERNAL_URL", value)))
                .isInstanceOf(InvalidServerSettingException.class)
                .hasMessage("GANTRY_EXTERNAL_URL must be an http or https URL with a host and no user, query or "
                        + "fragment, e.g. https://ci.example.com, got '" + value + "'");
        assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_EXTERNAL_URL", " ")))
                .hasMessageContaining("GANTRY_EXTERNAL_URL is set but empty");
    }

    @Test
    void a_pipeline_has_at_most_1000_jobs_unless_gantry_max_pipeline_jobs_says_otherwise() {
        assertThat(ServerSettings.fromEnvironment(Map.of()).maxPipelineJobs()).isEqualTo(1000);
        assertThat(ServerSettings.defaults().maxPipelineJobs()).isEqualTo(1000);
        assertThat(ServerSettings.fromEnvironment(Map.of("GANTRY_MAX_PIPELINE_JOBS", "5000")).maxPipelineJobs())
                .isEqualTo(5000);
        for (String bad : new String[] {"0", "-1", "100001", "1e3", "many", ""}) {
            assertThatThrownBy(() -> ServerSettings.fromEnvironment(Map.of("GANTRY_MAX_PIPELINE_JOBS", bad)))
                    .as(bad).isInstanceOf(InvalidServerSettingException.class)
                    .hasMessage("GANTRY_MAX_PIPELINE_JOBS must be a whole number from 1 to 100000, got '" + bad + "'");
        }
    }
}
