-- The orb store: every orb version the server serves, as its packed source. A release (X.Y.Z) never changes once
-- stored; a dev version (dev:LABEL) may be published again over itself, as in CircleCI's registry.
CREATE TABLE orb_version (
    namespace   text        COLLATE "C" NOT NULL,
    name        text        COLLATE "C" NOT NULL,
    version     text        COLLATE "C" NOT NULL,
    source      text        NOT NULL,
    sha256      bytea       NOT NULL CHECK (length(sha256) = 32),
    -- How it came: published through the API or CLI, imported from files, or fetched from the upstream registry.
    origin      text        NOT NULL CHECK (origin IN ('published', 'imported', 'upstream')),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    PRIMARY KEY (namespace, name, version)
);

-- The exact orb versions a pipeline's config was compiled with, so what it ran is known after @5 or @volatile moved.
CREATE TABLE pipeline_orb (
    pipeline_id  uuid NOT NULL REFERENCES pipeline (id) ON DELETE CASCADE,
    reference    text NOT NULL,
    version      text NOT NULL,
    PRIMARY KEY (pipeline_id, reference)
);
