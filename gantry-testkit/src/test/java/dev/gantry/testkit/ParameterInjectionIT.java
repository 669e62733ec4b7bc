package dev.gantry.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.sql.DataSource;
import java.sql.SQLException;

import static dev.gantry.testkit.EmbeddedPostgresExtensionIT.query;
import static org.assertj.core.api.Assertions.assertThat;

/** With {@code @ExtendWith}, tests take the data source or the extension as parameters. */
@ExtendWith(EmbeddedPostgresExtension.class)
class ParameterInjectionIT {

    @Test
    void a_test_can_take_the_data_source_and_the_extension_as_parameters(DataSource dataSource,
                                                                         EmbeddedPostgresExtension postgres)
            throws SQLException {
        assertThat(query(dataSource, "SELECT current_database() || ' ' || current_setting('TimeZone')"))
                .containsExactly(postgres.databaseName() + " Pacific/Chatham");
    }
}
