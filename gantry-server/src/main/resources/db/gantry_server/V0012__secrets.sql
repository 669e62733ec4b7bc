-- Secrets: project environment variables and contexts (CircleCI's API shapes), encrypted at rest by envelope
-- encryption. A data key (AES-256) encrypts values with AES-GCM; the data key is stored only wrapped (AES-GCM) by a
-- master key that lives in a file outside the database (master_key_id names it), so a copy of the database reveals
-- no value. Rotating the master key re-wraps the data keys and touches no value.
CREATE TABLE data_key (
    id            uuid        PRIMARY KEY,
    master_key_id text        NOT NULL,
    -- nonce (12 bytes) then the GCM ciphertext and tag of the 32-byte key; associated data: the data key's id
    wrapped       bytea       NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE TABLE project_env_var (
    project_id  uuid        NOT NULL REFERENCES project (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    data_key_id uuid        NOT NULL REFERENCES data_key (id),
    -- nonce (12 bytes) then the GCM ciphertext and tag of the UTF-8 value; associated data: what the value is of
    sealed      bytea       NOT NULL,
    -- what the API shows instead of the value, e.g. xxxx4711
    hint        text        NOT NULL,
    -- false for a value too short (under 4 characters) to be masked in job output, which the API says
    masked      boolean     NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (project_id, name)
);

-- A context belongs to an organization (the ORG of gantry/ORG/NAME project slugs).
CREATE TABLE context (
    id           uuid        PRIMARY KEY,
    organization text        NOT NULL,
    name         text        NOT NULL,
    created_at   timestamptz NOT NULL,
    CONSTRAINT context_name UNIQUE (organization, name)
);

CREATE TABLE context_env_var (
    context_id  uuid        NOT NULL REFERENCES context (id) ON DELETE CASCADE,
    name        text        NOT NULL,
    data_key_id uuid        NOT NULL REFERENCES data_key (id),
    sealed      bytea       NOT NULL,
    masked      boolean     NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (context_id, name)
);
