package dev.gantry.server.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.ServerSchema;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.io.IOException;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link OutputStoreContract} in PostgreSQL with the real migrations; and what only the database has: two stores on
 * one database (two servers) see one stream, and a store within a transaction writes with it or not at all.
 */
class DatabaseOutputStoreIT extends OutputStoreContract {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension();

    static Jdbi jdbi;
    DatabaseOutputStore store;

    @BeforeAll
    static void migrate() {
        ServerSchema.migrate(pg.dataSource());
        jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
    }

    @BeforeEach
    void open() {
        pg.truncate("gantry.output_piece");
        store = new DatabaseOutputStore(jdbi);
    }

    @Override
    OutputStore store() {
        return store;
    }

    @Test
    void two_servers_on_one_database_append_to_and_read_one_stream() throws IOException {
        OutputStore other = new DatabaseOutputStore(Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin()));

        store.append(job, 0, 0, text("from the first\n"));
        assertThat(other.append(job, 0, 15, text("from the second\n"))).isEqualTo(31);

        assertThat(read(0, 0)).isEqualTo("from the first\nfrom the second\n");
    }

    @Test
    void output_written_within_a_transaction_goes_with_it() throws IOException {
        try {
            jdbi.useTransaction(h -> {
                store.within(h).appendNote(job, 0, "rolled back\n");
                throw new IllegalStateException("the completion failed");
            });
        } catch (IllegalStateException expected) {
            // the transaction rolled back
        }
        jdbi.useTransaction(h -> store.within(h).append(job, 0, 0, text("committed\n")));

        assertThat(read(0, 0)).isEqualTo("committed\n");
    }
}
