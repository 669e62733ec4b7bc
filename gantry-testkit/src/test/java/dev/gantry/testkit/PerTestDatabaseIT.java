package dev.gantry.testkit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;

import static dev.gantry.testkit.EmbeddedPostgresExtensionIT.execute;
import static dev.gantry.testkit.EmbeddedPostgresExtensionIT.query;
import static org.assertj.core.api.Assertions.assertThat;

/** Registered in an instance field, the extension gives each test a database of its own. */
class PerTestDatabaseIT {
    private static final Set<String> databasesSeen = new HashSet<>();

    @RegisterExtension
    final EmbeddedPostgresExtension postgres = new EmbeddedPostgresExtension(2);

    @Test
    void the_first_test_gets_a_database_no_other_test_had() throws SQLException {
        useOnce();
    }

    @Test
    void the_second_test_gets_a_database_no_other_test_had() throws SQLException {
        useOnce();
    }

    private void useOnce() throws SQLException {
        assertThat(databasesSeen.add(postgres.databaseName())).isTrue();
        // Would fail with "relation already exists" if the database were shared with the other test.
        execute(postgres.dataSource(), "CREATE TABLE only_mine (id int)");
        assertThat(query(postgres.dataSource(), "SELECT current_database()")).containsExactly(postgres.databaseName());
    }
}
