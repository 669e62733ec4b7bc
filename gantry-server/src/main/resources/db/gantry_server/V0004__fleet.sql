-- What the scheduler packs onto an agent besides CPU and memory: its disk, and the pool whose jobs it runs (jobs
-- pinned by image, a macOS image say, run only in their pool). Agents registered before this know neither: their disk
-- counts as unbounded and they run the default pool.
ALTER TABLE agent ADD COLUMN disk_gb int CHECK (disk_gb > 0);
ALTER TABLE agent ADD COLUMN pool text NOT NULL DEFAULT 'default';

-- A job's expected duration is read from its recent successful runs (project and name), newest first.
CREATE INDEX job_history ON job (project_id, name, stopped_at DESC) WHERE status = 'success';


-- The queue insights read the waits of the tasks that started in the last day.
CREATE INDEX job_task_started ON job_task (started_at) WHERE started_at IS NOT NULL;

-- An operator's pause of job dispatch to a pool: its queued jobs wait (reason queue_paused) and start once it is
-- resumed; the autoscaler adds nothing for them meanwhile.
CREATE TABLE pool_pause (
    pool       text        PRIMARY KEY,
    paused_at  timestamptz NOT NULL,
    reason     text        NOT NULL
);
