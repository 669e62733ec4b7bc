package dev.gantry.server.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gantry.server.ServerSchema;
import dev.gantry.server.storage.FileBlobStore;
import dev.gantry.testkit.EmbeddedPostgresExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class NotificationRetentionIT {
    @RegisterExtension
    static final EmbeddedPostgresExtension pg = new EmbeddedPostgresExtension(16);
    static Jdbi jdbi;
    static final Instant NOW = Instant.parse("2026-12-10T10:00:00Z");

    @TempDir
    Path home;

    @BeforeAll
    static void migrate() {
        ServerSchema.migrate(pg.dataSource());
        jdbi = Jdbi.create(pg.dataSource()).installPlugin(new SqlObjectPlugin());
    }

    @Test
    void deliveries_final_for_longer_than_the_retention_go_with_their_attempts_and_then_their_events() {
        UUID oldEvent = event(NOW.minus(Duration.ofDays(40)));
        UUID oldDelivered = delivery(oldEvent, "delivered", NOW.minus(Duration.ofDays(31)));
        UUID oldDead = delivery(oldEvent, "dead", NOW.minus(Duration.ofDays(35)));
        UUID mixedEvent = event(NOW.minus(Duration.ofDays(40)));
        UUID mixedOld = delivery(mixedEvent, "delivered", NOW.minus(Duration.ofDays(39)));
        UUID mixedRecent = delivery(mixedEvent, "delivered", NOW.minus(Duration.ofDays(29)));
        UUID stuckEvent = event(NOW.minus(Duration.ofDays(40)));
        UUID stuckPending = delivery(stuckEvent, "pending", null);
        UUID alert = event("budget-alert", NOW.minus(Duration.ofDays(90)));
        UUID alertDelivered = delivery(alert, "delivered", NOW.minus(Duration.ofDays(89)));
        RetentionSweeper sweeper = new RetentionSweeper(jdbi, new FileBlobStore(home), RetentionSettings.defaults(),
                () -> NOW);

        assertThat(sweeper.sweepNotifications()).isEqualTo(new RetentionSweeper.NotificationsSwept(3, 1));

        assertThat(ids("notify_delivery")).as("a budget alert's stay with the alert")
                .containsExactlyInAnyOrder(mixedRecent, stuckPending, alertDelivered);
        assertThat(ids("notify_event")).containsExactlyInAnyOrder(mixedEvent, stuckEvent, alert);
        List<UUID> attempted = jdbi.withHandle(h -> h.createQuery("SELECT delivery_id FROM gantry.notify_attempt")
                .mapTo(UUID.class).list());
        assertThat(attempted).containsExactlyInAnyOrder(mixedRecent, stuckPending, alertDelivered);
        assertThat(List.of(oldDelivered, oldDead, mixedOld)).doesNotContainAnyElementsOf(ids("notify_delivery"));
        assertThat(sweeper.sweepNotifications()).isEqualTo(new RetentionSweeper.NotificationsSwept(0, 0));
    }

    private UUID event(Instant happenedAt) {
        return event("job-completed", happenedAt);
    }

    private UUID event(String type, Instant happenedAt) {
        UUID id = UUID.randomUUID();
        jdbi.useHandle(h -> h.execute("""
                INSERT INTO gantry.notify_event (id, type, subject_id, project_id, happened_at, snapshot)
                VALUES (?, ?, ?, ?, ?, '{}')""", id, type, UUID.randomUUID(), UUID.randomUUID(), at(happenedAt)));
        return id;
    }

    private UUID delivery(UUID event, String state, Instant finishedAt) {
        UUID id = UUID.randomUUID();
        jdbi.useHandle(h -> {
            h.execute("""
                    INSERT INTO gantry.notify_delivery (id, channel, destination_id, event_id, state, attempts,
                                                        window_started_at, created_at, finished_at)
                    VALUES (?, 'webhook', ?, ?, ?, 1, ?, ?, ?)""", id, UUID.randomUUID(), event, state,
                    at(NOW.minus(Duration.ofDays(40))), at(NOW.minus(Duration.ofDays(40))), at(finishedAt));
            h.execute("""
                    INSERT INTO gantry.notify_attempt (delivery_id, number, started_at, duration_ms, status_code)
                    VALUES (?, 1, ?, 5, 500)""", id, at(NOW.minus(Duration.ofDays(40))));
        });
        return id;
    }

    private static List<UUID> ids(String table) {
        return jdbi.withHandle(h -> h.createQuery("SELECT id FROM gantry." + table).mapTo(UUID.class).list());
    }

    private static OffsetDateTime at(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }
}
