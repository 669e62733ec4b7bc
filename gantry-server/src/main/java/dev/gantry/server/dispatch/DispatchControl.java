package dev.gantry.server.dispatch;

import java.time.Instant;
import java.util.Optional;
import java.time.OffsetDateTime;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/** The operator's one row of {@code gantry.dispatch_control}, shared by every server of the database. */
public interface DispatchControl {
    /** What the row holds; the nullable columns are null when an operator never set them. */
    record Row(Instant heldAt, String holdReason, Instant resumedAt, Float resumeRampFrom,
               Integer resumeRampSeconds, Float selfRampFrom, Integer selfRampSeconds) {
        static final Row NONE = new Row(null, null, null, null, null, null, null);
    }

    @SqlQuery("""
            SELECT held_at, hold_reason, resumed_at, resume_ramp_from, resume_ramp_seconds, self_ramp_from,
                   self_ramp_seconds
            FROM gantry.dispatch_control
            """)
    @RegisterConstructorMapper(Row.class)
    Optional<Row> find();

    /** The row; as if never set when it is missing (a test truncated it). */
    default Row read() {
        return find().orElse(Row.NONE);
    }

    /** Holds dispatch; a hold under way keeps its start and reason. */
    @SqlUpdate("""
            INSERT INTO gantry.dispatch_control AS c (held_at, hold_reason) VALUES (:now, :reason)
            ON CONFLICT (singleton) DO UPDATE SET held_at = coalesce(c.held_at, :now),
                hold_reason = coalesce(c.hold_reason, :reason)
            """)
    void hold(OffsetDateTime now, String reason);

    @SqlUpdate("""
            INSERT INTO gantry.dispatch_control AS c (resumed_at, resume_ramp_from, resume_ramp_seconds)
            VALUES (:now, :rampFrom, :rampSeconds)
            ON CONFLICT (singleton) DO UPDATE SET held_at = NULL, hold_reason = NULL, resumed_at = :now,
                resume_ramp_from = :rampFrom, resume_ramp_seconds = :rampSeconds
            """)
    void resume(OffsetDateTime now, float rampFrom, int rampSeconds);

    @SqlUpdate("""
            INSERT INTO gantry.dispatch_control AS c (self_ramp_from, self_ramp_seconds) VALUES (:rampFrom, :rampSeconds)
            ON CONFLICT (singleton) DO UPDATE SET self_ramp_from = :rampFrom, self_ramp_seconds = :rampSeconds
            """)
    void setSelfRamp(float rampFrom, int rampSeconds);
}
