-- What started each pipeline, as CircleCI's API shows it in a pipeline's "trigger" and "vcs", and the webhooks from
-- GitHub, GitLab and Gitea that start pipelines.

-- trigger_type is CircleCI's trigger.type; the actor is who triggered (the API caller, or the forge user who pushed
-- or opened the pull request). The defaults describe an API trigger by the admin, received as the row is written:
-- what every pipeline so far was, and what a statement that names none of these columns makes. The vcs_* columns
-- come from a forge's webhook and stay null for an API trigger: base_revision is pipeline.git.base_revision (a pull
-- request's base commit), review_id and review_url its number and page, origin_repository_url the repository the
-- commits come from (a fork's, for a pull request from one).
ALTER TABLE pipeline
    ADD COLUMN trigger_type              text        NOT NULL DEFAULT 'api'
                                         CHECK (trigger_type IN ('api', 'webhook', 'scheduled_pipeline')),
    ADD COLUMN trigger_actor             text        NOT NULL DEFAULT 'admin',
    ADD COLUMN trigger_actor_avatar_url  text,
    ADD COLUMN trigger_received_at       timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN vcs_provider              text CHECK (vcs_provider IN ('github', 'gitlab', 'gitea')),
    ADD COLUMN base_revision             text,
    ADD COLUMN review_id                 text,
    ADD COLUMN review_url                text,
    ADD COLUMN commit_subject            text,
    ADD COLUMN commit_body               text,
    ADD COLUMN commit_author             text,
    ADD COLUMN origin_repository_url     text,
    ADD COLUMN target_repository_url     text;

-- The pipelines so far were received when they were created.
UPDATE pipeline SET trigger_received_at = created_at;

-- The shared secret a forge signs its webhook deliveries with (GitHub and Gitea: HMAC-SHA256 of the body; GitLab:
-- sent as it is). Kept as it is, not hashed: checking an HMAC needs the key. Null: webhooks do not trigger the
-- project.
ALTER TABLE project ADD COLUMN webhook_secret text CHECK (length(webhook_secret) BETWEEN 16 AND 255);

-- One row per webhook delivery that made a pipeline, committed in the pipeline's transaction: a redelivery (same
-- provider and delivery id) finds its pipeline here instead of making another. Several projects may build one
-- repository, so one delivery may make one pipeline per project.
CREATE TABLE webhook_delivery (
    provider     text        NOT NULL CHECK (provider IN ('github', 'gitlab', 'gitea')),
    delivery_id  text        NOT NULL,
    project_id   uuid        NOT NULL REFERENCES project (id),
    pipeline_id  uuid        NOT NULL REFERENCES pipeline (id),
    received_at  timestamptz NOT NULL,
    CONSTRAINT webhook_delivery_once PRIMARY KEY (provider, delivery_id, project_id)
);
CREATE INDEX webhook_delivery_pipeline ON webhook_delivery (pipeline_id);
