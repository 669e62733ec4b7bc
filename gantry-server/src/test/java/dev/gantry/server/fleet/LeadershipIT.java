package dev.gantry.server.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gantry.server.ServerSchema;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import dev.gantry.testkit.ManualClock;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One autoscaler for the servers of a database: two {@link Leadership}s on one real database with a hand-moved clock,
 * one of them behind a database connection the test can cut, as an outage or a killed server would.
 */
class LeadershipIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);

    static final Duration TAKEOVER = Duration.ofSeconds(10);
    static final Duration TICK = Duration.ofSeconds(1);

    ManualClock clock;
    Cuttable toFirst;
    Cuttable toSecond;
    Leadership first;
    Leadership second;

    @BeforeAll
    static void migrate() {
        ServerSchema.migrate(pg.dataSource());
    }

    @BeforeEach
    void twoServers() {
        Jdbi.create(pg.dataSource()).useHandle(h -> h.execute("DELETE FROM gantry.leadership"));
        clock = new ManualClock();
        toFirst = new Cuttable(pg.dataSource());
        first = new Leadership(Jdbi.create(toFirst), "autoscaler", "first", TAKEOVER, clock);
        toSecond = new Cuttable(pg.dataSource());
        second = new Leadership(Jdbi.create(toSecond), "autoscaler", "second", TAKEOVER, clock);
    }

    @Test
    void the_first_to_look_leads_and_a_live_holder_keeps_it_however_long_it_leads() {
        assertThat(first.look(true)).isTrue();
        for (int i = 0; i < 60; i++) {
            clock.advance(TICK);
            assertThat(second.look(true)).as("second, tick %d", i).isFalse();
            assertThat(first.look(true)).as("first, tick %d", i).isTrue();
        }
        assertThat(second.lastSeen()).hasValueSatisfying(h -> assertThat(h.holder()).isEqualTo("first"));
    }

    @Test
    void a_silent_holder_is_taken_over_after_the_takeover_time_and_learns_it_at_its_next_look() {
        assertThat(first.look(true)).isTrue();
        assertThat(second.look(true)).isFalse(); // the watch starts
        clock.advance(TAKEOVER.minus(TICK));
        assertThat(second.look(true)).as("not silent long enough yet").isFalse();
        clock.advance(TICK);
        assertThat(second.look(true)).isTrue();

        assertThat(first.look(true)).as("a paused holder, back").isFalse();
        clock.advance(TICK);
        assertThat(second.look(true)).isTrue();
        assertThat(first.look(true)).isFalse();
    }

    @Test
    void an_outage_that_silences_every_server_does_not_move_leadership() {
        assertThat(first.look(true)).isTrue();
        assertThat(second.look(true)).isFalse();
        toFirst.cut = true;
        toSecond.cut = true;
        for (int i = 0; i < 60; i++) { // a minute of both servers failing to reach the database
            clock.advance(TICK);
            assertThatThrownBy(() -> first.look(true)).hasMessageContaining("the test");
            assertThatThrownBy(() -> second.look(true)).hasMessageContaining("the test");
        }
        toFirst.cut = false;
        toSecond.cut = false;
        clock.advance(TICK);
        assertThat(second.look(true)).as("the first look after the outage starts a fresh watch").isFalse();
        assertThat(first.look(true)).isTrue();
        for (int i = 0; i < 30; i++) {
            clock.advance(TICK);
            assertThat(second.look(true)).isFalse();
            assertThat(first.look(true)).isTrue();
        }
    }

    @Test
    void a_failed_look_starts_the_watch_again_and_a_holder_that_never_returns_is_taken_over() {
        assertThat(first.look(true)).isTrue();
        assertThat(second.look(true)).isFalse();
        clock.advance(TAKEOVER.minus(TICK));
        toSecond.cut = true;
        assertThatThrownBy(() -> second.look(true)).hasMessageContaining("the test");
        toSecond.cut = false;
        clock.advance(TICK.multipliedBy(2));
        assertThat(second.look(true)).as("watched afresh since the failed look").isFalse();
        toFirst.cut = true; // the holder never comes back
        clock.advance(TAKEOVER.minus(TICK));
        assertThat(second.look(true)).isFalse();
        clock.advance(TICK);
        assertThat(second.look(true)).isTrue();
    }

    @Test
    void a_holder_that_resigns_is_followed_at_the_next_look() {
        assertThat(first.look(true)).isTrue();
        assertThat(second.look(true)).isFalse();
        first.resign();
        assertThat(second.look(true)).isTrue();
        assertThat(first.look(true)).isFalse();
    }

    @Test
    void a_server_that_may_not_take_over_only_watches() {
        assertThat(second.look(false)).as("no row, but may not take it").isFalse();
        assertThat(first.look(true)).isTrue();
        assertThat(second.look(false)).isFalse();
        clock.advance(TAKEOVER.multipliedBy(3));
        assertThat(second.look(false)).isFalse();
        assertThat(second.look(true)).as("silent for three takeover times").isTrue();
    }

    @Test
    void a_restarted_holder_leads_again_at_once() {
        assertThat(first.look(true)).isTrue();
        Leadership restarted = new Leadership(Jdbi.create(pg.dataSource()), "autoscaler", "first", TAKEOVER, clock);
        assertThat(restarted.look(true)).isTrue();
        assertThat(second.look(true)).isFalse();
    }

    /** A data source whose connections the test can refuse, as a database that went away. */
    static final class Cuttable implements DataSource {
        private final DataSource real;
        volatile boolean cut;

        Cuttable(DataSource real) {
            this.real = real;
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (cut) {
                throw new SQLTransientConnectionException("the test cut the database off");
            }
            return real.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
