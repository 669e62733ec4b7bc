-- Completions and lease extensions of held messages (Queues.completeAll, heartbeatAll), as functions. A call is one
-- statement, so it runs and commits in one round trip to the server, where a transaction around the statement and
-- the settings it needs took three. The settings are the function's own, for the call only:
-- * enable_seqscan off: the primary key is the one good way to the messages, but the planner cannot know it for a
--   young partition. A plan made while the epoch was nearly empty reads it whole, and the session keeps that plan as
--   the epoch fills; without statistics, custom plans took a full partition for small too (the benchmark's young
--   epochs were read whole a few hundred times each).
-- * the generic plan, made once per session: a custom plan was made again for every batch, over every live partition
--   and its indexes (81 us, a quarter of the statement's time in the benchmark's steady load), for the same probes.
-- Each row's attempt is looked up by its id's position in ids, not joined: with a join, the planner probed the index
-- once per id, sorting the whole array again each time (190 ms for a batch of 500 under load). So ids must hold each
-- id once.
CREATE FUNCTION complete_held(ids bigint[], attempts int[], finished timestamptz)
    RETURNS TABLE (done_id bigint, done_attempt int)
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off
AS $$
BEGIN
    RETURN QUERY
        UPDATE gantry_queue.message m SET state = 2, finished_at = finished, lease_until = NULL
        WHERE m.id = ANY (ids) AND m.state = 1 AND m.attempt = attempts[array_position(ids, m.id)]
        RETURNING m.id, m.attempt;
END
$$;

CREATE FUNCTION extend_held(ids bigint[], attempts int[], until timestamptz)
    RETURNS TABLE (done_id bigint, done_attempt int)
    LANGUAGE plpgsql
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off
AS $$
BEGIN
    RETURN QUERY
        UPDATE gantry_queue.message m SET lease_until = until
        WHERE m.id = ANY (ids) AND m.state = 1 AND m.attempt = attempts[array_position(ids, m.id)]
        RETURNING m.id, m.attempt;
END
$$;
