package dev.gantry.queue;

import java.util.List;

/** The queue's statements, as text you could paste into psql. Names are schema-qualified: callers' search paths vary. */
final class MessageSql {
    private MessageSql() {
    }

    static final String CURRENT_EPOCH = "(SELECT max(epoch) FROM gantry_queue.epoch WHERE sealed_at IS NULL)";

    /** Serialises enqueues of one unique key (queue names cannot hold a slash), so exactly one of two creates it. */
    static final String LOCK_KEY = "SELECT pg_advisory_xact_lock(hashtextextended(:queue || '/' || :key, 0))";

    /**
     * The epochs not sealed yet. A seal detaches its epoch from the hot table before it attaches it to the archive,
     * and between the two (milliseconds, or until the next maintenance turn when a long transaction holds up the
     * detach) the epoch's messages are in neither: lookups by key or id read these epochs' tables directly as well.
     * An epoch in between at the lookup was already unsealed when this list was read before it, and one opened since
     * is in the hot table.
     */
    static final String UNSEALED = "SELECT epoch FROM gantry_queue.epoch WHERE sealed_at IS NULL ORDER BY epoch";

    /** {@code select}, with {@code %s} for a table, as one more branch of {@code union} per unsealed epoch's table. */
    private static String fromUnsealed(List<Integer> unsealed, String union, String select) {
        StringBuilder sql = new StringBuilder();
        for (int epoch : unsealed) {
            sql.append(union).append(' ').append(select.formatted("gantry_queue.message_" + epoch)).append('\n');
        }
        return sql.toString();
    }

    /** The message of {@code :queue} with unique key {@code :key}, wherever it is; one statement, one snapshot. */
    static String findByKey(List<Integer> unsealed) {
        return """
                SELECT id FROM gantry_queue.message WHERE queue = :queue AND unique_key = :key
                UNION ALL
                SELECT id FROM gantry_queue.message_archive WHERE queue = :queue AND unique_key = :key
                """ + fromUnsealed(unsealed, "UNION ALL",
                "SELECT id FROM %s WHERE queue = :queue AND unique_key = :key") + "LIMIT 1";
    }

    /**
     * The dead messages of {@code :queue}, wherever they are, the latest to die first. UNION, not UNION ALL: an
     * unsealed epoch still attached is read both through the hot table and directly.
     */
    static String dead(List<Integer> unsealed) {
        String select = "SELECT id, queue, payload, attempt, last_error, finished_at FROM %s "
                + "WHERE queue = :queue AND state = 3";
        return """
                SELECT * FROM (
                    %s
                    UNION
                    %s
                """.formatted(select.formatted("gantry_queue.message"),
                select.formatted("gantry_queue.message_archive")) + fromUnsealed(unsealed, "UNION", select) + """
                ) dead
                ORDER BY finished_at DESC, id DESC
                LIMIT :limit
                """;
    }

    static final String INSERT = """
            INSERT INTO gantry_queue.message (epoch, id, queue, state, priority, group_key, run_at, attempt,
                                              max_attempts, unique_key, payload, enqueued_at)
            VALUES (""" + CURRENT_EPOCH + """
            , nextval('gantry_queue.message_id'), :queue, 0, :priority, :group, :runAt, 0,
                    :maxAttempts, :key, :payload, :now)
            RETURNING id
            """;

    /** Many messages without unique keys, from parallel arrays (run times in microseconds since the epoch). */
    static final String INSERT_ALL = """
            INSERT INTO gantry_queue.message (epoch, id, queue, state, priority, group_key, run_at, attempt,
                                              max_attempts, payload, enqueued_at)
            SELECT """ + CURRENT_EPOCH + """
            , nextval('gantry_queue.message_id'), m.queue, 0, m.priority, m.group_key,
                   timestamptz 'epoch' + m.run_at * interval '1 microsecond', 0, m.max_attempts, m.payload, :now
            FROM unnest(CAST(:queues AS text[]), CAST(:priorities AS int[]), CAST(:groups AS text[]),
                        CAST(:runAts AS bigint[]), CAST(:maxAttempts AS int[]), CAST(:payloads AS text[]))
                 WITH ORDINALITY AS m(queue, priority, group_key, run_at, max_attempts, payload, n)
            ORDER BY m.n
            RETURNING id
            """;

    /**
     * Claims fairly: within a priority, groups (tenants) take turns, each group oldest first. It walks the distinct
     * groups with ready messages through the index (a loose index scan: one probe per group, however many messages
     * a group has), takes up to {@code :perGroup} of each group's oldest due messages, and hands out the first
     * {@code :limit} by priority, then turn, then age. SKIP LOCKED: concurrent claimers take the next messages of
     * each group instead of waiting for each other's locks.
     */
    static final String CLAIM = """
            WITH RECURSIVE grp AS (
                (SELECT priority, group_key, 1 AS n FROM gantry_queue.message
                 WHERE queue = :queue AND state = 0
                 ORDER BY priority DESC, group_key DESC
                 LIMIT 1)
                UNION ALL
                SELECT next.priority, next.group_key, g.n + 1
                FROM grp g
                CROSS JOIN LATERAL (
                    SELECT priority, group_key FROM gantry_queue.message
                    WHERE queue = :queue AND state = 0 AND (priority, group_key) < (g.priority, g.group_key)
                    ORDER BY priority DESC, group_key DESC
                    LIMIT 1
                ) next
                WHERE g.n < :maxGroups
            ),
            candidate AS (
                SELECT c.id, c.epoch, g.priority, g.group_key, c.run_at
                FROM grp g
                CROSS JOIN LATERAL (
                    SELECT id, epoch, run_at FROM gantry_queue.message
                    WHERE queue = :queue AND state = 0 AND priority = g.priority AND group_key = g.group_key
                      AND run_at <= :now
                    ORDER BY run_at, id
                    LIMIT :perGroup
                    FOR UPDATE SKIP LOCKED
                ) c
                WHERE NOT EXISTS (SELECT 1 FROM gantry_queue.queue q WHERE q.name = :queue AND q.paused)
            ),
            picked AS (
                SELECT id, epoch FROM (
                    SELECT id, epoch, priority, run_at,
                           row_number() OVER (PARTITION BY priority, group_key ORDER BY run_at, id) AS turn
                    FROM candidate
                ) ranked
                ORDER BY priority DESC, turn, run_at, id
                LIMIT :limit
            )
            UPDATE gantry_queue.message m
            SET state = 1, attempt = m.attempt + 1, lease_until = :leaseUntil, worker = :worker
            FROM picked
            WHERE m.id = picked.id AND m.epoch = picked.epoch
            RETURNING m.id, m.queue, m.payload, m.unique_key, m.group_key, m.priority, m.attempt, m.max_attempts,
                      m.enqueued_at, m.lease_until, m.last_error, m.run_at
            """;

    // Every update of a held message names its attempt: a stale holder changes nothing. Completions and lease
    // extensions are functions of the schema (V0007): each finds its messages by primary key with a generic plan, in
    // one statement that commits as it ends. :ids must hold each id once (Queues.heldQuery sends the highest attempt
    // of each).
    static final String COMPLETE_ALL = """
            SELECT done_id, done_attempt
            FROM gantry_queue.complete_held(CAST(:ids AS bigint[]), CAST(:attempts AS int[]), :now)
            """;

    static final String EXTEND_ALL = """
            SELECT done_id, done_attempt
            FROM gantry_queue.extend_held(CAST(:ids AS bigint[]), CAST(:attempts AS int[]), :leaseUntil)
            """;

    static final String RETRY = """
            UPDATE gantry_queue.message
            SET state = 0, run_at = :runAt, lease_until = NULL, worker = NULL, last_error = :error
            WHERE id = :id AND attempt = :attempt AND state = 1
            """;

    static final String BURY = """
            UPDATE gantry_queue.message
            SET state = 3, finished_at = :now, lease_until = NULL, worker = NULL, last_error = :error
            WHERE id = :id AND attempt = :attempt AND state = 1
            """;

    static final String RESCUE = """
            WITH expired AS (
                SELECT id, epoch FROM gantry_queue.message
                WHERE state = 1 AND lease_until < :now
                ORDER BY lease_until
                LIMIT :limit
                FOR UPDATE SKIP LOCKED
            )
            UPDATE gantry_queue.message m
            SET state = CASE WHEN m.attempt >= m.max_attempts THEN 3 ELSE 0 END,
                finished_at = CASE WHEN m.attempt >= m.max_attempts THEN CAST(:now AS timestamptz) END,
                run_at = :now, lease_until = NULL, worker = NULL,
                last_error = 'lease expired at attempt ' || m.attempt || coalesce(' held by ' || m.worker, '')
            FROM expired
            WHERE m.id = expired.id AND m.epoch = expired.epoch
            RETURNING m.queue
            """;

    static final String RELEASE_HELD_BY = """
            UPDATE gantry_queue.message m
            SET state = CASE WHEN m.attempt >= m.max_attempts THEN 3 ELSE 0 END,
                finished_at = CASE WHEN m.attempt >= m.max_attempts THEN CAST(:now AS timestamptz) END,
                run_at = :now, lease_until = NULL, worker = NULL,
                last_error = 'released at attempt ' || m.attempt || ': its holder ' || m.worker || ' restarted'
            WHERE m.state = 1 AND m.lease_until IS NOT NULL AND m.worker = ANY(:workers)
            RETURNING m.queue
            """;

    // A replay keeps counting attempts (and grants a fresh allowance): the attempt number stays a fence, so a
    // holder from before the message died cannot finish the replayed delivery. The message moves to the newest epoch:
    // ready again in its own, it could be claimed there after a seal had moved that epoch's unfinished messages, and
    // its completion would find no row once the epoch was detached.
    static final String REPLAY_LIVE = """
            UPDATE gantry_queue.message SET epoch = """ + CURRENT_EPOCH + """
            , state = 0, max_attempts = attempt + max_attempts,
                                            run_at = :now, finished_at = NULL
            WHERE id = :id AND state = 3
            """;

    /** Replays the message from the archive, keeping a copy there that is no longer counted as dead. */
    static final String REPLAY_ARCHIVED =
            replayFrom("UPDATE gantry_queue.message_archive SET state = 4 WHERE id = :id AND state = 3 RETURNING *");

    /** Replays the message from an unsealed epoch's own table, which is in between (see {@link #UNSEALED}). */
    static String replayDetached(int epoch) {
        return replayFrom("DELETE FROM gantry_queue.message_" + epoch + " WHERE id = :id AND state = 3 RETURNING *");
    }

    /** Inserts into the newest epoch, ready, the dead message that {@code source} returns. */
    private static String replayFrom(String source) {
        return "WITH buried AS (" + source + ")" + """

                INSERT INTO gantry_queue.message (epoch, id, queue, state, priority, group_key, run_at, attempt,
                                                  max_attempts, unique_key, payload, last_error, enqueued_at)
                SELECT """ + CURRENT_EPOCH + """
                , id, queue, 0, priority, group_key, :now, attempt, attempt + max_attempts, unique_key, payload,
                       last_error, enqueued_at
                FROM buried
                """;
    }

    static final String PAUSE = """
            INSERT INTO gantry_queue.queue (name, paused, changed_at) VALUES (:queue, true, :now)
            ON CONFLICT (name) DO UPDATE SET paused = true, changed_at = excluded.changed_at
            """;

    static final String RESUME = """
            INSERT INTO gantry_queue.queue (name, paused, changed_at, resumed_at, ramp_from, ramp_seconds)
            VALUES (:queue, false, :now, :now, :rampFrom, :rampSeconds)
            ON CONFLICT (name) DO UPDATE SET paused = false, changed_at = excluded.changed_at,
                resumed_at = excluded.resumed_at, ramp_from = excluded.ramp_from, ramp_seconds = excluded.ramp_seconds
            """;

    static final String SET_LIMITS = """
            INSERT INTO gantry_queue.queue (name, paused, changed_at, max_running, max_per_second)
            VALUES (:queue, false, :now, :maxRunning, :maxPerSecond)
            ON CONFLICT (name) DO UPDATE SET changed_at = excluded.changed_at, max_running = excluded.max_running,
                max_per_second = excluded.max_per_second
            """;

    /** Serialises the claims of a queue with a concurrency limit, so two cannot both take the last free slots. */
    static final String LOCK_CLAIMS = "SELECT pg_advisory_xact_lock(hashtextextended('claim/' || :queue, 0))";

    static final String STATS = """
            SELECT queue, sum(ready) AS ready, sum(running) AS running, sum(dead) AS dead, min(oldest_due) AS oldest_due
            FROM (
                SELECT queue,
                       count(*) FILTER (WHERE state = 0) AS ready,
                       count(*) FILTER (WHERE state = 1) AS running,
                       count(*) FILTER (WHERE state = 3) AS dead,
                       min(run_at) FILTER (WHERE state = 0 AND run_at <= :now) AS oldest_due
                FROM gantry_queue.message GROUP BY queue
                UNION ALL
                SELECT queue, 0, 0, count(*), NULL FROM gantry_queue.message_archive WHERE state = 3 GROUP BY queue
            ) counts
            GROUP BY queue
            ORDER BY queue
            """;

    static final String WAL_POSITION = "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint";

    static final String TUPLES = """
            SELECT coalesce(sum(n_dead_tup), 0), coalesce(sum(n_live_tup), 0)
            FROM pg_stat_user_tables WHERE schemaname = 'gantry_queue'
            """;

    static final String RUNNING = """
            SELECT count(*) FROM gantry_queue.message WHERE lease_until IS NOT NULL AND queue = :queue AND state = 1
            """;

    /**
     * A message's state, wherever it is (see {@link #UNSEALED}). An archived copy in state 0 or 1 was moved forward
     * when its epoch was sealed: the live row is the truth.
     */
    static String stateOf(List<Integer> unsealed) {
        return """
                SELECT state FROM (
                    SELECT state, 0 AS source FROM gantry_queue.message WHERE id = :id
                    UNION ALL
                    SELECT state, 2 FROM gantry_queue.message_archive WHERE id = :id AND state NOT IN (0, 1)
                """ + fromUnsealed(unsealed, "UNION ALL", "SELECT state, 1 FROM %s WHERE id = :id") + """
                ) found
                ORDER BY source
                LIMIT 1
                """;
    }
}
