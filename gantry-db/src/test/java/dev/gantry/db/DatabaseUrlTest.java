package dev.gantry.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatabaseUrlTest {

    @Test
    void a_jdbc_url_is_kept_exactly_as_given() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://db.example.com:6432/gantry?sslmode=require&user=ci");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:6432/gantry?sslmode=require&user=ci");
        assertThat(url.user()).isEmpty();
        assertThat(url.password()).isEmpty();
        assertThat(url.database()).isEqualTo("gantry");
    }

    @Test
    void a_postgres_url_becomes_a_jdbc_url_plus_user_and_password() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://gantry:s3cret@db.example.com:6432/ci?sslmode=require");

        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:6432/ci?sslmode=require");
        assertThat(url.user()).contains("gantry");
        assertThat(url.password()).contains("s3cret");
        assertThat(url.database()).isEqualTo("ci");
    }

    @Test
    void the_postgresql_scheme_is_accepted_in_any_case() {
        assertThat(DatabaseUrl.parse("postgresql://u@h/d").jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/d");
        assertThat(DatabaseUrl.parse("POSTGRES://u@h/d").jdbcUrl()).isEqualTo("jdbc:postgresql://h:5432/d");
    }

    @Test
    void a_missing_port_means_5432() {
        assertThat(DatabaseUrl.parse("postgres://db/gantry").jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/gantry");
    }

    @Test
    void credentials_are_percent_decoded_and_a_plus_stays_a_plus() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://ci%40corp:p%40ss%2Fw+rd%3A%25@db/gantry");

        assertThat(url.user()).contains("ci@corp");
        assertThat(url.password()).contains("p@ss/w+rd:%");
    }

    @Test
    void a_user_without_a_password_has_no_password() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://gantry@db/gantry");

        assertThat(url.user()).contains("gantry");
        assertThat(url.password()).isEmpty();
    }

    @Test
    void a_url_without_credentials_leaves_them_to_the_driver() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://db/gantry");

        assertThat(url.user()).isEmpty();
        assertThat(url.password()).isEmpty();
    }

    @Test
    void ipv6_hosts_in_brackets_are_kept_in_brackets() {
        assertThat(DatabaseUrl.parse("postgres://u:p@[::1]:5433/gantry").jdbcUrl())
                .isEqualTo("jdbc:postgresql://[::1]:5433/gantry");
        assertThat(DatabaseUrl.parse("postgres://[fe80::1]/gantry").jdbcUrl())
                .isEqualTo("jdbc:postgresql://[fe80::1]:5432/gantry");
    }

    @Test
    void several_hosts_each_get_a_port() {
        assertThat(DatabaseUrl.parse("postgres://u:p@primary:6432,replica/gantry?targetServerType=primary").jdbcUrl())
                .isEqualTo("jdbc:postgresql://primary:6432,replica:5432/gantry?targetServerType=primary");
    }

    @Test
    void a_database_name_with_special_characters_survives_the_conversion() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://db/ci%20builds");

        assertThat(url.database()).isEqualTo("ci builds");
    }

    @Test
    void a_url_without_a_database_leaves_the_database_to_the_driver() {
        assertThat(DatabaseUrl.parse("postgres://u@db:5432").jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/");
        assertThat(DatabaseUrl.parse("postgres://u@db?sslmode=require").jdbcUrl())
                .isEqualTo("jdbc:postgresql://db:5432/?sslmode=require");
    }

    @Test
    void to_string_masks_the_password_wherever_it_is() {
        assertThat(DatabaseUrl.parse("postgres://gantry:s3cret@db/gantry"))
                .hasToString("jdbc:postgresql://db:5432/gantry (user gantry, password ****)");
        assertThat(DatabaseUrl.parse("jdbc:postgresql://db/gantry?user=gantry&password=s3cret&ssl=true"))
                .hasToString("jdbc:postgresql://db/gantry?user=gantry&password=****&ssl=true");
    }

    @Test
    void with_database_keeps_the_server_the_parameters_and_the_credentials() {
        DatabaseUrl shard = DatabaseUrl.parse("postgres://gantry:s3cret@db:6432/gantry?sslmode=require")
                .withDatabase("gantry_shard_2");

        assertThat(shard.jdbcUrl()).isEqualTo("jdbc:postgresql://db:6432/gantry_shard_2?sslmode=require");
        assertThat(shard.user()).contains("gantry");
        assertThat(shard.password()).contains("s3cret");
        assertThat(DatabaseUrl.parse("jdbc:postgresql://a,b/x").withDatabase("y").jdbcUrl())
                .isEqualTo("jdbc:postgresql://a,b/y");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "mysql://u:s3cret@db/gantry",
            "db.example.com:5432/gantry",
            "jdbc:postgresql://db.example.com:5432",
            "jdbc:postgresql:gantry",
            "postgres://u:s3cret@:5432/gantry",
            "postgres://u:s3cret@db:port/gantry",
            "postgres://u:s3cret@db:70000/gantry",
            "postgres://u:s3cret@::1/gantry",
            "postgres://u:s3cret@[::1/gantry",
            "postgres://u:s3cret@db/gan%zztry",
            "postgres://u:s3/cret@db/gantry",
            "postgres://u:s3#cret@db/gantry",
    })
    void an_unusable_url_is_rejected_naming_the_setting_and_never_showing_the_password(String text) {
        assertThatThrownBy(() -> DatabaseUrl.parse(text))
                .isInstanceOfSatisfying(InvalidSettingException.class, failure -> {
                    assertThat(failure.setting()).isEqualTo(DatabaseSetting.DATABASE_URL);
                    assertThat(failure.getMessage()).startsWith("GANTRY_DATABASE_URL ");
                    assertThat(failure.getMessage()).doesNotContain("s3cret", "cret");
                });
    }

    @Test
    void an_unknown_scheme_is_explained() {
        assertThatThrownBy(() -> DatabaseUrl.parse("mysql://db/gantry")).hasMessage(
                "GANTRY_DATABASE_URL must start with jdbc:postgresql://, postgres:// or postgresql://, "
                        + "got 'mysql://db/gantry'");
    }
}
