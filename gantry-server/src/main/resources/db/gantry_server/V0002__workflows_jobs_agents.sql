-- What a pipeline runs: workflows of jobs, each job one task per parallel node, and the agents that run them, with
-- what the jobs leave behind (steps, artifacts, caches, workspace layers, test results). Job output itself lives in
-- files under $GANTRY_HOME (see OutputStore), not here. Status words are CircleCI's.

-- A trigger leaves a pipeline 'pending'; the plan builder makes it 'created' (workflows stored) or 'errored'.
ALTER TABLE pipeline DROP CONSTRAINT pipeline_state_check;
ALTER TABLE pipeline ADD CONSTRAINT pipeline_state
    CHECK (state IN ('pending', 'created', 'errored', 'setup-pending', 'setup'));
-- Why a pipeline errored, as CircleCI shows it: [{"type": "config", "message": "file:line:column: ..."}].
ALTER TABLE pipeline ADD COLUMN errors jsonb NOT NULL DEFAULT '[]';

-- Jobs are numbered per project like pipelines: the planner takes numbers by updating this row.
ALTER TABLE project ADD COLUMN last_job_number bigint NOT NULL DEFAULT 0;
-- Cancel the running workflows of older pipelines on the same (non-default) branch when a new one is planned.
ALTER TABLE project ADD COLUMN auto_cancel_redundant boolean NOT NULL DEFAULT false;

CREATE TABLE workflow (
    id           uuid        PRIMARY KEY,
    pipeline_id  uuid        NOT NULL REFERENCES pipeline (id),
    name         text        NOT NULL,
    status       text        NOT NULL CHECK (status IN ('running', 'on_hold', 'failing', 'success', 'failed',
                                                        'canceled', 'not_run', 'error')),
    -- A rerun is a new workflow of the same pipeline; this points at the one it reran.
    rerun_of     uuid        REFERENCES workflow (id),
    created_at   timestamptz NOT NULL,
    stopped_at   timestamptz
);
CREATE INDEX workflow_pipeline ON workflow (pipeline_id, created_at);

CREATE TABLE agent (
    id             uuid        PRIMARY KEY,
    name           text        NOT NULL,
    cpu            int         NOT NULL CHECK (cpu > 0),
    memory_mb      int         NOT NULL CHECK (memory_mb > 0),
    registered_at  timestamptz NOT NULL,
    last_seen_at   timestamptz NOT NULL
);

CREATE TABLE job (
    id                uuid        PRIMARY KEY,
    workflow_id       uuid        NOT NULL REFERENCES workflow (id),
    project_id        uuid        NOT NULL REFERENCES project (id),
    number            bigint      NOT NULL,
    name              text        NOT NULL,
    -- 1, or 2 for the automatic retry of a job whose agent was lost (infrastructure_fail); user failures never retry.
    attempt           int         NOT NULL DEFAULT 1 CHECK (attempt IN (1, 2)),
    type              text        NOT NULL CHECK (type IN ('build', 'approval', 'no-op')),
    status            text        NOT NULL CHECK (status IN ('blocked', 'queued', 'running', 'success', 'failed',
                                                             'canceled', 'not_run', 'on_hold', 'infrastructure_fail')),
    -- Upstream job name to the statuses that let this one start: {"build": ["success"]}.
    requires          jsonb       NOT NULL,
    -- What the job asks of an agent (null for approvals and no-ops).
    resource_class    text,
    cpu               int,
    memory_mb         int,
    -- {"type": "docker", "image": "cimg/node:20.11"}: recorded and shown; steps run on the agent's shell for now.
    executor          jsonb,
    parallelism       int         NOT NULL CHECK (parallelism >= 1),
    -- The expanded job the agent runs (PlanJson.writeJob): steps, environment, shell, working directory.
    spec              jsonb       NOT NULL,
    -- A rerun from failed carries a successful job over without running it; this is the job it carried.
    copied_from       uuid        REFERENCES job (id),
    -- Set by a cancel while the job runs; the agent hears it on its next heartbeat and stops.
    cancel_requested  boolean     NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL,
    queued_at         timestamptz,
    started_at        timestamptz,
    stopped_at        timestamptz,
    CONSTRAINT job_number UNIQUE (project_id, number),
    CONSTRAINT job_attempt UNIQUE (workflow_id, name, attempt)
);

-- One per parallel node of a job: what an agent claims, leases and finishes.
CREATE TABLE job_task (
    job_id       uuid        NOT NULL REFERENCES job (id),
    node_index   int         NOT NULL CHECK (node_index >= 0),
    status       text        NOT NULL CHECK (status IN ('queued', 'running', 'success', 'failed', 'canceled',
                                                        'infrastructure_fail')),
    agent_id     uuid        REFERENCES agent (id),
    -- Fences the agent's calls: a new claim makes a new lease, and a call with another one is refused.
    lease        uuid,
    lease_until  timestamptz,
    queued_at    timestamptz NOT NULL,
    started_at   timestamptz,
    stopped_at   timestamptz,
    PRIMARY KEY (job_id, node_index)
);
-- The tasks waiting for an agent, oldest first. Partial on a status, which the queue avoids for its hot table: tasks
-- are a few per job, not a stream of messages, and each row changes state only a handful of times.
CREATE INDEX job_task_queued ON job_task (queued_at) WHERE status = 'queued';
CREATE INDEX job_task_leased ON job_task (lease_until) WHERE status = 'running';

CREATE TABLE job_step (
    job_id         uuid        NOT NULL REFERENCES job (id),
    node_index     int         NOT NULL,
    step_index     int         NOT NULL,
    name           text        NOT NULL,
    status         text        NOT NULL CHECK (status IN ('running', 'success', 'failed', 'canceled', 'skipped')),
    exit_code      int,
    -- Where this step's output starts in the node's output.
    output_offset  bigint      NOT NULL,
    started_at     timestamptz NOT NULL,
    stopped_at     timestamptz,
    PRIMARY KEY (job_id, node_index, step_index)
);

CREATE TABLE artifact (
    job_id      uuid        NOT NULL REFERENCES job (id),
    node_index  int         NOT NULL,
    path        text        NOT NULL,
    size        bigint      NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (job_id, node_index, path)
);

-- A cache key once written is immutable; restores match keys as prefixes, the newest entry winning.
CREATE TABLE cache_entry (
    project_id  uuid        NOT NULL REFERENCES project (id),
    key         text        COLLATE "C" NOT NULL,
    size        bigint      NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (project_id, key)
);

CREATE TABLE workspace_layer (
    id           uuid        PRIMARY KEY,
    workflow_id  uuid        NOT NULL REFERENCES workflow (id),
    job_id       uuid        NOT NULL REFERENCES job (id),
    node_index   int         NOT NULL,
    size         bigint      NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX workspace_layer_workflow ON workspace_layer (workflow_id, created_at);

CREATE TABLE test_case (
    job_id      uuid             NOT NULL REFERENCES job (id),
    node_index  int              NOT NULL,
    seq         int              NOT NULL,
    classname   text             NOT NULL,
    name        text             NOT NULL,
    file        text,
    result      text             NOT NULL CHECK (result IN ('success', 'failure', 'error', 'skipped')),
    run_time    double precision NOT NULL,
    message     text,
    PRIMARY KEY (job_id, node_index, seq)
);
