-- A retry after a lost agent runs only the nodes that did not succeed (issue 31). Each node that had succeeded gets a
-- task in the retry that is already 'success', with the times and agent of the attempt that ran it, and carried_from
-- naming that attempt's job: its steps, output, test results, artifacts and workspace layers stay under that job's id
-- and are shown as the retry's. A carried task never ran again, so it is never charged (accepted_at stays null).
ALTER TABLE job_task ADD COLUMN carried_from uuid REFERENCES job (id);

-- The (job, node) pairs whose results a job shows: its own nodes, except those its retry carried over, which are
-- read from the job that ran them. Readers of steps, tests, artifacts and layers select rows in these pairs.
CREATE FUNCTION result_nodes(of_job uuid) RETURNS TABLE (job_id uuid, node_index int)
    LANGUAGE sql STABLE AS $$
    SELECT coalesce(t.carried_from, j.id), n.n
    FROM gantry.job j
    CROSS JOIN generate_series(0, j.parallelism - 1) AS n(n)
    LEFT JOIN gantry.job_task t ON t.job_id = j.id AND t.node_index = n.n
    WHERE j.id = of_job
$$;

-- Each server's lease sweeper marks its row on every sweep that reaches the database (the database's clock, so that
-- servers need not agree on theirs). A server starting, or back from a failed sweep, gives every running task a fresh
-- lease only if no other server swept lately: then no agent could renew its lease meanwhile. Beside a server that
-- kept sweeping, agents renewed through it, and a blanket renewal would only hide the agents that really died.
CREATE TABLE lease_sweep (
    server    text        PRIMARY KEY,
    swept_at  timestamptz NOT NULL
);

-- The Idempotency-Key an agent registered with: the same registration sent again (its answer was lost to a timeout)
-- gets the agent the first one made, with a new credential, instead of a second agent.
ALTER TABLE agent ADD COLUMN registration_key text;
CREATE UNIQUE INDEX agent_registration_key ON agent (registration_key);
