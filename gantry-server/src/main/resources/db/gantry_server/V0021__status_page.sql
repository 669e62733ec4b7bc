-- The computed status page (issue 32): what every server of the database needs to show the same page.

-- Each server's HTTP requests per period (a minute by default) and surface: 'api' (/api/… and /webhooks/…),
-- 'intake' (the trigger routes) and 'output' (writing and reading job output), with how many were answered 5xx.
-- Each server adds its own counts to its own rows; the page sums every server's. The leader of the status page deletes
-- rows older than twice the long window.
CREATE TABLE status_request_count (
    server        text        NOT NULL,
    period_start  timestamptz NOT NULL,
    surface       text        NOT NULL CHECK (surface IN ('api', 'intake', 'output')),
    requests      bigint      NOT NULL CHECK (requests >= 0),
    errors        bigint      NOT NULL CHECK (errors >= 0 AND errors <= requests),
    PRIMARY KEY (period_start, server, surface)
);

-- A stretch of time a component was degraded or worse, opened and closed by the server that leads the status page
-- (role 'status-page' in gantry.leadership). At most one open incident per component, whoever writes.
CREATE TABLE status_incident (
    id              uuid        PRIMARY KEY,
    component       text        NOT NULL,
    component_name  text        NOT NULL,
    worst_state     text        NOT NULL CHECK (worst_state IN ('degraded', 'partial_outage', 'major_outage')),
    reason          text        NOT NULL,
    started_at      timestamptz NOT NULL,
    ended_at        timestamptz,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT status_incident_ends_after_start CHECK (ended_at IS NULL OR ended_at >= started_at)
);
CREATE UNIQUE INDEX status_incident_open ON status_incident (component) WHERE ended_at IS NULL;
CREATE INDEX status_incident_started ON status_incident (started_at DESC);

-- An admin's note on an incident. There is no way to hide or delete an incident or a note through the API.
CREATE TABLE status_incident_note (
    id           uuid        PRIMARY KEY,
    incident_id  uuid        NOT NULL REFERENCES status_incident (id),
    author       text        NOT NULL,
    message      text        NOT NULL CHECK (length(message) BETWEEN 1 AND 4000),
    created_at   timestamptz NOT NULL
);
CREATE INDEX status_incident_note_incident ON status_incident_note (incident_id, created_at);

-- The intake's figures: pipelines created in a window, and those still waiting for their plan.
CREATE INDEX pipeline_created ON pipeline (created_at);
CREATE INDEX pipeline_pending ON pipeline (created_at) WHERE state = 'pending';
