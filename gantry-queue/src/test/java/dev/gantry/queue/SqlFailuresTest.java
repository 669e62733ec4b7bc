package dev.gantry.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

class SqlFailuresTest {
    /** A server error as PostgreSQL sends it: fields of a type letter and a value, each ended by a zero byte. */
    private static PSQLException serverError(String state, String schema, String table, String message) {
        return new PSQLException(new ServerErrorMessage("SERROR\0C" + state + "\0M" + message + "\0s" + schema
                + "\0t" + table + "\0"));
    }

    @Test
    void no_partition_of_the_hot_table_for_an_enqueued_row_is_a_short_unavailability() {
        PSQLException e = serverError("23514", "gantry_queue", "message",
                "no partition of relation \"message\" found for row");

        assertThat(SqlFailures.epochSwitch(new RuntimeException("wrapped", e))).isTrue();
        assertThat(SqlFailures.translate("enqueue", e))
                .isInstanceOfSatisfying(QueueUnavailableException.class,
                        u -> assertThat(u.retryAfter()).isEqualTo(Duration.ofSeconds(1)))
                .hasMessage("enqueue failed: the queue was switching to a new epoch; retry");
    }

    @Test
    void other_check_violations_stay_errors() {
        PSQLException callers = serverError("23514", "public", "orders",
                "new row for relation \"orders\" violates check constraint \"positive\"");
        PSQLException queues = serverError("23514", "gantry_queue", "message",
                "new row for relation \"message_7\" violates partition constraint");

        assertThat(SqlFailures.epochSwitch(callers)).isFalse();
        assertThat(SqlFailures.epochSwitch(queues)).isFalse();
        assertThat(SqlFailures.translate("enqueue", callers)).isExactlyInstanceOf(QueueException.class);
    }
}
