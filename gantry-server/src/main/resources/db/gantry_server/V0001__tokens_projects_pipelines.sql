-- The server's own state: API tokens, projects and pipelines. Every timestamp is timestamptz, written by the server.

-- Only SHA-256 hashes of the tokens: a copy of the database holds nothing that authenticates.
CREATE TABLE api_token (
    kind        text        PRIMARY KEY CHECK (kind IN ('admin', 'agent')),
    token_hash  bytea       NOT NULL CHECK (length(token_hash) = 32),
    issued_at   timestamptz NOT NULL
);

-- Organization and name compare bytewise (COLLATE "C"), so the listing order, and with it the page tokens, do not
-- depend on the locale the cluster was created with.
CREATE TABLE project (
    id                    uuid        PRIMARY KEY,
    organization          text        COLLATE "C" NOT NULL,
    name                  text        COLLATE "C" NOT NULL,
    vcs_url               text        NOT NULL,
    -- The last pipeline number handed out. A trigger takes the next one by updating this row, whose lock it holds
    -- until it commits: triggers of one project queue up there, and a rolled-back trigger leaves no gap.
    last_pipeline_number  bigint      NOT NULL DEFAULT 0,
    created_at            timestamptz NOT NULL,
    CONSTRAINT project_slug UNIQUE (organization, name)
);

CREATE TABLE pipeline (
    id               uuid        PRIMARY KEY,
    project_id       uuid        NOT NULL REFERENCES project (id),
    number           bigint      NOT NULL,
    state            text        NOT NULL CHECK (state IN ('created', 'errored', 'setup-pending', 'setup', 'pending')),
    branch           text,
    tag              text,
    revision         text,
    parameters       jsonb       NOT NULL,
    -- The client's Idempotency-Key, and a hash of what it asked for: a repeat with the same key and the same request
    -- gets this pipeline back, the same key with another request is refused.
    idempotency_key  text,
    request_hash     bytea       NOT NULL,
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CONSTRAINT pipeline_number UNIQUE (project_id, number),
    CONSTRAINT pipeline_idempotency_key UNIQUE (project_id, idempotency_key),
    CONSTRAINT pipeline_branch_or_tag CHECK ((branch IS NULL) <> (tag IS NULL))
);
