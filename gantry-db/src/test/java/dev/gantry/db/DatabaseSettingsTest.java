package dev.gantry.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatabaseSettingsTest {

    @Test
    void an_empty_environment_means_an_embedded_server_under_the_users_gantry_directory() {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(Map.of());

        assertThat(settings).isEqualTo(DatabaseSettings.defaults());
        assertThat(settings.home()).isEqualTo(Path.of(System.getProperty("user.home"), ".gantry"));
        assertThat(settings.embedded()).isTrue();
        assertThat(settings.embeddedDataDirectory()).isEqualTo(settings.home().resolve("postgres"));
        assertThat(settings.embeddedPort()).isZero();
        assertThat(settings.poolSize()).isEqualTo(10);
        assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.socketTimeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void every_variable_is_read() {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(Map.of(
                "GANTRY_HOME", "/srv/gantry",
                "GANTRY_EMBEDDED_PG_PORT", "15432",
                "GANTRY_EMBEDDED_PG_STARTUP_TIMEOUT", "2m",
                "GANTRY_DATABASE_POOL_SIZE", "25",
                "GANTRY_DATABASE_CONNECT_TIMEOUT", "1500ms",
                "GANTRY_DATABASE_SOCKET_TIMEOUT", "45s"));

        assertThat(settings).isEqualTo(new DatabaseSettings(Path.of("/srv/gantry"), Optional.empty(), 15432,
                Duration.ofMinutes(2), 25, Duration.ofMillis(1500), Duration.ofSeconds(45)));
    }

    @Test
    void a_database_url_means_an_external_server() {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(
                Map.of("GANTRY_DATABASE_URL", "postgres://gantry:s3cret@db:5432/gantry"));

        assertThat(settings.embedded()).isFalse();
        assertThat(settings.url()).contains(DatabaseUrl.parse("postgres://gantry:s3cret@db:5432/gantry"));
    }

    @Test
    void a_home_starting_with_a_tilde_is_in_the_users_home_directory() {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(Map.of("GANTRY_HOME", "~/ci/gantry"));

        assertThat(settings.home()).isEqualTo(Path.of(System.getProperty("user.home"), "ci", "gantry"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "500ms | PT0.5S",
            "5s    | PT5S",
            "2m    | PT2M",
            "PT3S  | PT3S",
    })
    void durations_are_written_with_a_unit_or_in_iso_8601(String text, Duration expected) {
        DatabaseSettings settings = DatabaseSettings.fromEnvironment(Map.of("GANTRY_DATABASE_CONNECT_TIMEOUT", text));

        assertThat(settings.connectTimeout()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "GANTRY_HOME                        | relative/path",
            "GANTRY_HOME                        | ' '",
            "GANTRY_DATABASE_URL                | mysql://db/gantry",
            "GANTRY_DATABASE_URL                | ''",
            "GANTRY_EMBEDDED_PG_PORT            | x",
            "GANTRY_EMBEDDED_PG_PORT            | -1",
            "GANTRY_EMBEDDED_PG_PORT            | 80",
            "GANTRY_EMBEDDED_PG_PORT            | 65536",
            "GANTRY_EMBEDDED_PG_STARTUP_TIMEOUT | 0s",
            "GANTRY_EMBEDDED_PG_STARTUP_TIMEOUT | 31m",
            "GANTRY_DATABASE_POOL_SIZE          | x",
            "GANTRY_DATABASE_POOL_SIZE          | 0",
            "GANTRY_DATABASE_POOL_SIZE          | 201",
            "GANTRY_DATABASE_POOL_SIZE          | 2.5",
            "GANTRY_DATABASE_CONNECT_TIMEOUT    | 5",
            "GANTRY_DATABASE_CONNECT_TIMEOUT    | 5 seconds",
            "GANTRY_DATABASE_CONNECT_TIMEOUT    | 100ms",
            "GANTRY_DATABASE_CONNECT_TIMEOUT    | 11m",
            "GANTRY_DATABASE_CONNECT_TIMEOUT    | -PT5S",
            "GANTRY_DATABASE_SOCKET_TIMEOUT     | 500ms",
            "GANTRY_DATABASE_SOCKET_TIMEOUT     | 2h",
    })
    void each_unusable_value_is_rejected_naming_its_variable(String variable, String value) {
        assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(Map.of(variable, value)))
                .isInstanceOfSatisfying(InvalidSettingException.class, failure -> {
                    assertThat(failure.setting().environmentVariable()).isEqualTo(variable);
                    assertThat(failure.getMessage()).startsWith(variable + " ");
                });
    }

    @Test
    void the_message_says_the_rule_and_the_value() {
        assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(Map.of("GANTRY_DATABASE_POOL_SIZE", "x")))
                .hasMessage("GANTRY_DATABASE_POOL_SIZE must be an integer from 1 to 200, got 'x'");
        assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(Map.of("GANTRY_DATABASE_CONNECT_TIMEOUT", "1h")))
                .hasMessage("GANTRY_DATABASE_CONNECT_TIMEOUT must be a duration like 500ms, 5s or 2m, "
                        + "from 250ms to 10m, got '1h'");
    }

    @Test
    void an_empty_variable_is_an_error_not_the_default() {
        assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(Map.of("GANTRY_DATABASE_URL", "")))
                .hasMessage("GANTRY_DATABASE_URL is set but empty; unset it to use the default");
    }

    @Test
    void embedded_server_variables_together_with_a_database_url_are_an_error() {
        Map<String, String> environment = new HashMap<>(Map.of("GANTRY_DATABASE_URL", "postgres://db/gantry"));
        environment.put("GANTRY_EMBEDDED_PG_STARTUP_TIMEOUT", "30s");

        assertThatThrownBy(() -> DatabaseSettings.fromEnvironment(environment))
                .isInstanceOfSatisfying(InvalidSettingException.class, failure ->
                        assertThat(failure.setting()).isEqualTo(DatabaseSetting.EMBEDDED_STARTUP_TIMEOUT));
        assertThatThrownBy(() -> DatabaseSettings.builder().url("postgres://db/gantry").embeddedPort(5433).build())
                .isInstanceOfSatisfying(InvalidSettingException.class, failure ->
                        assertThat(failure.setting()).isEqualTo(DatabaseSetting.EMBEDDED_PORT));
    }

    @Test
    void the_builder_validates_when_it_builds() {
        assertThatThrownBy(() -> DatabaseSettings.builder().poolSize(0).build())
                .isInstanceOfSatisfying(InvalidSettingException.class, failure ->
                        assertThat(failure.setting()).isEqualTo(DatabaseSetting.POOL_SIZE));
        assertThatThrownBy(() -> DatabaseSettings.builder().home(Path.of("relative")).build())
                .isInstanceOfSatisfying(InvalidSettingException.class, failure ->
                        assertThat(failure.setting()).isEqualTo(DatabaseSetting.HOME));
    }

    @Test
    void settings_made_with_the_constructor_are_checked_by_validate_and_by_database_start() {
        DatabaseSettings tooSmallPool = new DatabaseSettings(Path.of("/srv/gantry"), Optional.empty(), 0,
                Duration.ofSeconds(60), 0, Duration.ofSeconds(5), Duration.ofSeconds(30));

        assertThatThrownBy(tooSmallPool::validate).isInstanceOf(InvalidSettingException.class);
        assertThatThrownBy(() -> Database.start(tooSmallPool))
                .isInstanceOfSatisfying(InvalidSettingException.class, failure ->
                        assertThat(failure.setting()).isEqualTo(DatabaseSetting.POOL_SIZE));
    }

    @Test
    void describe_shows_the_effective_configuration_with_the_password_masked() {
        DatabaseSettings external = DatabaseSettings.builder().home(Path.of("/srv/gantry"))
                .url("postgres://gantry:s3cret@db:5432/gantry?sslmode=require").build();
        DatabaseSettings embedded = DatabaseSettings.builder().home(Path.of("/srv/gantry")).embeddedPort(15432)
                .build();

        assertThat(external.describe()).isEqualTo("home=/srv/gantry, database=jdbc:postgresql://db:5432/gantry"
                + "?sslmode=require (user gantry, password ****), poolSize=10, connectTimeout=1s, socketTimeout=30s");
        assertThat(embedded.describe()).isEqualTo("home=/srv/gantry, database=embedded PostgreSQL in "
                + "/srv/gantry/postgres on its Unix socket and 127.0.0.1:15432, embeddedStartupTimeout=1m, "
                + "poolSize=10, connectTimeout=1s, socketTimeout=30s");
    }

    @Test
    void to_builder_keeps_every_value() {
        DatabaseSettings settings = DatabaseSettings.builder().home(Path.of("/srv/gantry")).url("postgres://db/g")
                .poolSize(3).connectTimeout(Duration.ofSeconds(2)).build();

        assertThat(settings.toBuilder().build()).isEqualTo(settings);
    }

    @Test
    void every_setting_has_a_gantry_variable_and_a_description() {
        for (DatabaseSetting setting : DatabaseSetting.values()) {
            assertThat(setting.environmentVariable()).startsWith("GANTRY_");
            assertThat(setting.description()).isNotBlank();
        }
    }
}
