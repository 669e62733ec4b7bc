-- Notification destinations beside webhooks (docs/notifications.md): Slack incoming webhooks, e-mail recipients and
-- commit statuses on the project's forge, each with its rule. Their deliveries use notify_delivery with channel =
-- kind and destination_id = this row's id, the same queue, guard and log as webhooks.

-- secret is sealed like a secret (V0012) under secret_key, with 'notify-destination:<id>' as associated data: the
-- Slack URL (the URL is the credential) or the forge token. E-mail has none (the SMTP password is a server setting).
-- host is where calls go, the guard's key; it is shown where the secret is not.
CREATE TABLE notify_destination (
    id            uuid        PRIMARY KEY,
    project_id    uuid        NOT NULL REFERENCES project (id),
    kind          text        NOT NULL CHECK (kind IN ('slack', 'email', 'commit-status')),
    name          text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    host          text        NOT NULL,
    recipients    text[]      NOT NULL DEFAULT '{}',
    forge         text        CHECK (forge IN ('github', 'gitlab', 'gitea')),
    api_url       text,
    repository    text,
    secret        bytea,
    secret_key    uuid        REFERENCES data_key (id),
    -- The rule: on every run, on failure, or when fixed; only on these branches (names or globs; none: all).
    notify_when   text        NOT NULL CHECK (notify_when IN ('always', 'failure', 'fixed')),
    branches      text[]      NOT NULL DEFAULT '{}',
    -- Also told of the organization's usage budget alerts (docs/usage.md).
    budget_alerts boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    CHECK ((kind = 'email') = (cardinality(recipients) > 0)),
    CHECK ((kind = 'email') = (secret IS NULL))
);
CREATE INDEX notify_destination_of_project ON notify_destination (project_id);

-- A workflow's start (for pending commit statuses) and a usage budget alert (an organization's: no project).
ALTER TABLE notify_event DROP CONSTRAINT notify_event_type_check;
ALTER TABLE notify_event ADD CONSTRAINT notify_event_type_check
    CHECK (type IN ('workflow-started', 'workflow-completed', 'job-completed', 'budget-alert'));
ALTER TABLE notify_event ALTER COLUMN project_id DROP NOT NULL;
