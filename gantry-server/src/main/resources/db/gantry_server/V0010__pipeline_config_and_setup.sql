-- The config a pipeline ran, as read and as compiled (GET /pipeline/{id}/config); for a setup pipeline also the setup
-- config, its source the repository's and its compiled form, with the continued config in source and compiled.
CREATE TABLE pipeline_config (
    pipeline_id     uuid PRIMARY KEY REFERENCES pipeline (id) ON DELETE CASCADE,
    source          text,
    compiled        text,
    setup_source    text,
    setup_compiled  text
);

-- A setup pipeline's continuation key (dynamic configuration): handed to its setup workflow's jobs as
-- CIRCLE_CONTINUATION_KEY, looked up by its hash, good for one continuation.
CREATE TABLE pipeline_continuation (
    pipeline_id   uuid        PRIMARY KEY REFERENCES pipeline (id) ON DELETE CASCADE,
    key_hash      bytea       NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    key           text        NOT NULL,
    created_at    timestamptz NOT NULL,
    continued_at  timestamptz
);
