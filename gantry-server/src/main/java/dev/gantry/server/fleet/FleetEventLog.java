package dev.gantry.server.fleet;

import dev.gantry.scheduler.fleet.FleetController;
import dev.gantry.scheduler.fleet.FleetEvent;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.PreparedBatch;

/**
 * The autoscaler's actions in the database ({@code fleet_event}): the leading server appends what its controller did
 * each round, and any server reads the latest, so the fleet page shows the same history on every server and across a
 * change of leader. Rows older than {@link #KEPT} are deleted. Thread-safe.
 */
final class FleetEventLog {
    static final Duration KEPT = Duration.ofDays(7);

    private final Jdbi jdbi;

    FleetEventLog(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Appends {@code events}, done by the controller of {@code server}. */
    void append(List<FleetEvent> events, String server) {
        if (events.isEmpty()) {
            return;
        }
        jdbi.useHandle(h -> {
            PreparedBatch batch = h.prepareBatch("""
                    INSERT INTO gantry.fleet_event (at, kind, cluster, type, instance_id, message, server)
                    VALUES (:at, :kind, :cluster, :type, :instanceId, :message, :server)
                    """);
            for (FleetEvent e : events) {
                batch.bind("at", e.at().atOffset(ZoneOffset.UTC)).bind("kind", e.kind().name())
                        .bind("cluster", e.cluster()).bind("type", e.type()).bind("instanceId", e.instanceId())
                        .bind("message", e.message()).bind("server", server).add();
            }
            batch.execute();
        });
    }

    /** The latest {@value FleetController#RECENT_EVENTS} events, oldest first. */
    List<FleetEvent> recent() {
        List<FleetEvent> newestFirst = jdbi.withHandle(h -> h.createQuery("""
                        SELECT at, kind, cluster, type, instance_id, message FROM gantry.fleet_event
                        ORDER BY id DESC LIMIT :limit
                        """).bind("limit", FleetController.RECENT_EVENTS)
                .map((rs, ctx) -> new FleetEvent(rs.getObject("at", OffsetDateTime.class).toInstant(),
                        FleetEvent.Kind.valueOf(rs.getString("kind")), rs.getString("cluster"), rs.getString("type"),
                        rs.getString("instance_id"), rs.getString("message")))
                .list());
        List<FleetEvent> oldestFirst = new ArrayList<>(newestFirst);
        Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    /** Deletes the events from before {@code now - KEPT}; how many went. */
    int prune(Instant now) {
        return jdbi.withHandle(h -> h.createUpdate("DELETE FROM gantry.fleet_event WHERE at < :before")
                .bind("before", now.minus(KEPT).atOffset(ZoneOffset.UTC)).execute());
    }
}
