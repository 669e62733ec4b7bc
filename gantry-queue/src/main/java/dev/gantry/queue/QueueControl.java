package dev.gantry.queue;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * How an operator has set one queue: paused or not ({@link Queues#pause}), its limits ({@link Queues#limit}), and
 * the ramp of its last resume ({@link Queues#resume(String, Ramp)}) with when that was. A queue nobody has set has
 * none: it runs unpaused and unlimited.
 */
public record QueueControl(String queue, boolean paused, QueueLimits limits, Ramp ramp, Optional<Instant> resumedAt) {
    /** The columns {@link #read} needs from {@code gantry_queue.queue}. */
    static final String COLUMNS = "name, paused, max_running, max_per_second, ramp_from, ramp_seconds, resumed_at";

    static QueueControl read(ResultSet rs) throws SQLException {
        Integer running = (Integer) rs.getObject("max_running");
        Float perSecond = (Float) rs.getObject("max_per_second");
        OffsetDateTime resumed = rs.getObject("resumed_at", OffsetDateTime.class);
        return new QueueControl(rs.getString("name"), rs.getBoolean("paused"),
                new QueueLimits(running, perSecond == null ? null : perSecond.doubleValue()),
                new Ramp(rs.getFloat("ramp_from"), Duration.ofSeconds(rs.getInt("ramp_seconds"))),
                Optional.ofNullable(resumed).map(OffsetDateTime::toInstant));
    }
}
