-- Scheduled pipelines (CircleCI's schedule API). Each slot of a timetable fires at most once: the pipeline it starts
-- carries the idempotency key schedule:<id>:<slot>, so a second server, or a retry after a crash, finds that pipeline
-- instead of making another; and at least once: next_run_at moves on only after the slot's pipeline is committed.
CREATE TABLE schedule (
    id           uuid        PRIMARY KEY,
    project_id   uuid        NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    name         text        NOT NULL,
    description  text        NOT NULL,
    timetable    jsonb       NOT NULL,
    -- branch or tag, and the pipeline parameters
    parameters   jsonb       NOT NULL,
    -- who the pipelines are attributed to: the creator's login, or 'system'
    actor        text        NOT NULL,
    -- after an outage: true runs every missed slot, oldest first; false runs only slots less than a grace late
    catch_up     boolean     NOT NULL,
    next_run_at  timestamptz NOT NULL,
    last_slot    timestamptz,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    CONSTRAINT schedule_name UNIQUE (project_id, name)
);

CREATE INDEX schedule_due ON schedule (next_run_at);
