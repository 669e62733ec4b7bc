package dev.gantry.server.status;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

/**
 * Every statement of the status page: the figures it reads from the rows every server shares (job tasks,
 * pipelines, request counts), and {@code gantry.status_request_count}, {@code gantry.status_incident} and
 * {@code gantry.status_incident_note}, which it writes. Windows are passed as parallel arrays of names and lengths in
 * milliseconds, so one statement answers every window.
 */
@RegisterConstructorMapper(StatusDao.RequestRow.class)
@RegisterConstructorMapper(StatusDao.ExecutorRow.class)
@RegisterConstructorMapper(StatusDao.WaitRow.class)
@RegisterConstructorMapper(StatusDao.PipelineRow.class)
@RegisterConstructorMapper(StatusDao.DeliveryRow.class)
@RegisterConstructorMapper(StatusDao.PendingRow.class)
@RegisterConstructorMapper(StatusDao.IncidentRow.class)
@RegisterConstructorMapper(StatusDao.NoteRow.class)
interface StatusDao {
    record RequestRow(String surface, String window, long requests, long errors) {
    }

    record ExecutorRow(String type, String image) {
    }

    record WaitRow(String resourceClass, String pool, String window, long tasks, long waiting, long p95Ms,
                   long oldestWaitingMs) {
    }

    record PipelineRow(String window, long created, long internalErrors) {
    }

    record DeliveryRow(String window, long deliveries, long failing) {
    }

    record PendingRow(long pending, long oldestMs) {
    }

    record IncidentRow(UUID id, String component, String componentName, String worstState, String reason,
                       Instant startedAt, Instant endedAt, Instant updatedAt) {
    }

    record NoteRow(UUID incidentId, Instant createdAt, String author, String message) {
    }

    /** Adds this server's counts to its rows (one per period and surface), creating them as needed. */
    @SqlUpdate("""
            INSERT INTO gantry.status_request_count (server, period_start, surface, requests, errors)
            SELECT :server, to_timestamp(c.period_ms / 1000.0), c.surface, c.requests, c.errors
            FROM unnest(:periodMs, :surfaces, :requests, :errors) AS c(period_ms, surface, requests, errors)
            ON CONFLICT (period_start, server, surface) DO UPDATE
            SET requests = gantry.status_request_count.requests + excluded.requests,
                errors = gantry.status_request_count.errors + excluded.errors
            """)
    int addRequests(String server, long[] periodMs, String[] surfaces, long[] requests, long[] errors);

    /** Every server's requests per surface over each window (periods that started within it). */
    @SqlQuery("""
            SELECT c.surface, w.name AS window, sum(c.requests)::bigint AS requests, sum(c.errors)::bigint AS errors
            FROM gantry.status_request_count c
            JOIN unnest(:windows, :spansMs) AS w(name, span_ms)
              ON c.period_start >= CAST(:now AS timestamptz) - w.span_ms * interval '1 millisecond'
            WHERE c.period_start >= :longest
            GROUP BY c.surface, w.name
            """)
    List<RequestRow> requests(OffsetDateTime now, OffsetDateTime longest, String[] windows, long[] spansMs);

    /** The executors of the tasks the job-start figures are made of, for the caller to find each one's pool. */
    @SqlQuery("""
            SELECT DISTINCT j.executor->>'type' AS type, j.executor->>'image' AS image
            FROM gantry.job_task t
            JOIN gantry.job j ON j.id = t.job_id
            WHERE t.started_at > :longest
               OR (t.status = 'queued' AND j.status IN ('queued', 'running') AND NOT j.cancel_requested)
            """)
    List<ExecutorRow> executors(OffsetDateTime longest);

    /**
     * Waits (queued → started) per resource class, pool and window, of the tasks that started in the window and of
     * those still waiting, counted with their wait so far; the pool of each executor as the caller found it.
     */
    @SqlQuery("""
            WITH pools AS (
                SELECT * FROM unnest(:types, :images, :pools) AS p(type, image, pool)
            ), waits AS (
                SELECT j.resource_class, coalesce(p.pool, 'default') AS pool, w.waiting,
                       w.began, greatest(0, extract(epoch FROM w.began - t.queued_at) * 1000) AS wait_ms
                FROM gantry.job_task t
                CROSS JOIN LATERAL (
                    SELECT t.status = 'queued' AS waiting,
                           CASE WHEN t.status = 'queued' THEN CAST(:now AS timestamptz) ELSE t.started_at END AS began
                ) w
                JOIN gantry.job j ON j.id = t.job_id
                LEFT JOIN pools p ON p.type IS NOT DISTINCT FROM j.executor->>'type'
                                 AND p.image IS NOT DISTINCT FROM j.executor->>'image'
                WHERE (t.started_at > :longest
                       OR (t.status = 'queued' AND j.status IN ('queued', 'running') AND NOT j.cancel_requested))
                  AND t.carried_from IS NULL -- a retry's carried node waited once, in the attempt that ran it
            )
            SELECT wt.resource_class, wt.pool, w.name AS window, count(*) AS tasks,
                   count(*) FILTER (WHERE wt.waiting) AS waiting,
                   percentile_disc(0.95) WITHIN GROUP (ORDER BY wt.wait_ms)::bigint AS p95_ms,
                   coalesce(max(wt.wait_ms) FILTER (WHERE wt.waiting), 0)::bigint AS oldest_waiting_ms
            FROM waits wt
            JOIN unnest(:windows, :spansMs) AS w(name, span_ms)
              ON wt.began > CAST(:now AS timestamptz) - w.span_ms * interval '1 millisecond'
            WHERE wt.resource_class IS NOT NULL
            GROUP BY wt.resource_class, wt.pool, w.name
            """)
    List<WaitRow> waits(OffsetDateTime now, OffsetDateTime longest, String[] types, String[] images, String[] pools,
                        String[] windows, long[] spansMs);

    /**
     * Notifications (webhooks, Slack, e-mail, commit statuses) to deliver, made per window, and how many of them are
     * failing: pending or dead (not delivered, nor superseded by a later one), and either tried and failed, held back
     * by their destination's guard (an open circuit, a spent retry budget), or late: due before {@code lateBefore} and
     * not tried since, as when the queue (shard) holding them is down. One in flight for the first time is none of
     * these. Counting deliveries rather than attempts keeps the figure honest while a circuit breaker holds the
     * attempts down.
     */
    @SqlQuery("""
            SELECT w.name AS window, count(d.id) AS deliveries,
                   count(d.id) FILTER (WHERE d.state IN ('pending', 'dead')
                       AND (d.attempts > 0 OR d.waiting_reason IS NOT NULL
                            OR d.next_attempt_at < CAST(:lateBefore AS timestamptz))) AS failing
            FROM unnest(:windows, :spansMs) AS w(name, span_ms)
            LEFT JOIN gantry.notify_delivery d
              ON d.created_at > CAST(:now AS timestamptz) - w.span_ms * interval '1 millisecond'
            GROUP BY w.name
            """)
    List<DeliveryRow> deliveries(OffsetDateTime now, OffsetDateTime lateBefore, String[] windows, long[] spansMs);

    /** Pipelines created per window, and how many of them the server failed to plan (an internal error). */
    @SqlQuery("""
            SELECT w.name AS window, count(p.id) AS created,
                   count(p.id) FILTER (WHERE p.state = 'errored' AND EXISTS (
                       SELECT 1 FROM jsonb_array_elements(p.errors) e
                       WHERE e->>'type' = 'plan' AND starts_with(e->>'message', :internalError))) AS internal_errors
            FROM unnest(:windows, :spansMs) AS w(name, span_ms)
            LEFT JOIN gantry.pipeline p
              ON p.created_at > CAST(:now AS timestamptz) - w.span_ms * interval '1 millisecond'
            GROUP BY w.name
            """)
    List<PipelineRow> pipelines(OffsetDateTime now, String internalError, String[] windows, long[] spansMs);

    @SqlQuery("""
            SELECT count(*) AS pending,
                   coalesce(greatest(0, extract(epoch FROM CAST(:now AS timestamptz) - min(created_at)) * 1000),
                            0)::bigint AS oldest_ms
            FROM gantry.pipeline WHERE state = 'pending'
            """)
    PendingRow pending(OffsetDateTime now);

    String INCIDENT_COLUMNS = "id, component, component_name, worst_state, reason, started_at, ended_at, updated_at";

    /** Every open incident and the latest closed ones, the latest first, at most {@code limit} in all. */
    @SqlQuery("SELECT " + INCIDENT_COLUMNS + """
             FROM gantry.status_incident
            ORDER BY ended_at IS NULL DESC, started_at DESC, id
            LIMIT :limit
            """)
    List<IncidentRow> incidents(int limit);

    @SqlQuery("""
            SELECT incident_id, created_at, author, message FROM gantry.status_incident_note
            WHERE incident_id = ANY(:ids) ORDER BY created_at, id
            """)
    List<NoteRow> notes(UUID[] ids);

    @SqlQuery("SELECT " + INCIDENT_COLUMNS + " FROM gantry.status_incident WHERE id = :id")
    Optional<IncidentRow> incident(UUID id);

    /** The open incident of {@code component}, locked: its writer is about to change it. */
    @SqlQuery("SELECT " + INCIDENT_COLUMNS + """
             FROM gantry.status_incident WHERE component = :component AND ended_at IS NULL FOR UPDATE
            """)
    Optional<IncidentRow> openIncident(String component);

    /** Whether an incident of {@code component} covers some of {@code from} … {@code to}. */
    @SqlQuery("""
            SELECT EXISTS (SELECT 1 FROM gantry.status_incident
                           WHERE component = :component AND started_at <= :to
                             AND (ended_at IS NULL OR ended_at >= :from))
            """)
    boolean overlaps(String component, OffsetDateTime from, OffsetDateTime to);

    /** @return false when the component has an open incident already (another writer won) */
    @SqlUpdate("""
            INSERT INTO gantry.status_incident (id, component, component_name, worst_state, reason, started_at,
                                                ended_at, updated_at)
            VALUES (:id, :component, :componentName, :worstState, :reason, :startedAt, :endedAt, :now)
            ON CONFLICT DO NOTHING
            """)
    boolean insertIncident(UUID id, String component, String componentName, String worstState, String reason,
                           OffsetDateTime startedAt, OffsetDateTime endedAt, OffsetDateTime now);

    @SqlUpdate("""
            UPDATE gantry.status_incident SET worst_state = :worstState, reason = :reason, updated_at = :now
            WHERE id = :id
            """)
    int worsen(UUID id, String worstState, String reason, OffsetDateTime now);

    /** Closes the incident {@code id} if it is still open; the end is never before its start. */
    @SqlUpdate("""
            UPDATE gantry.status_incident SET ended_at = greatest(started_at, :endedAt), updated_at = :now
            WHERE id = :id AND ended_at IS NULL
            """)
    int close(UUID id, OffsetDateTime endedAt, OffsetDateTime now);

    @SqlUpdate("""
            INSERT INTO gantry.status_incident_note (id, incident_id, author, message, created_at)
            VALUES (:id, :incidentId, :author, :message, :now)
            """)
    void insertNote(UUID id, UUID incidentId, String author, String message, OffsetDateTime now);

    @SqlUpdate("UPDATE gantry.status_incident SET updated_at = greatest(updated_at, :now) WHERE id = :id")
    int touch(UUID id, OffsetDateTime now);

    @SqlUpdate("DELETE FROM gantry.status_request_count WHERE period_start < :before")
    int deleteRequestsBefore(OffsetDateTime before);
}
