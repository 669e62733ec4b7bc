-- The people who use the API: users with tokens of their own, their roles in organizations (the ORG of
-- gantry/ORG/NAME), and the audit log of every state-changing call.
CREATE TABLE app_user (
    -- ActorIds.of(login): the id workflows and jobs already show for the login
    id          uuid        PRIMARY KEY,
    login       text        NOT NULL UNIQUE,
    name        text        NOT NULL,
    -- admin of every organization, and of the server itself (queues, fleet, users); the admin token's user is one
    site_admin  boolean     NOT NULL,
    created_at  timestamptz NOT NULL
);

CREATE TABLE user_token (
    id           uuid        PRIMARY KEY,
    user_id      uuid        NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    -- SHA-256 of the token (gnt_user_…); the token itself is shown once, when it is made
    token_hash   bytea       NOT NULL UNIQUE,
    label        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    -- updated at most once a minute per token
    last_used_at timestamptz,
    revoked_at   timestamptz
);

CREATE TABLE membership (
    organization text        NOT NULL,
    user_id      uuid        NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    role         text        NOT NULL CHECK (role IN ('viewer', 'member', 'admin')),
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (organization, user_id)
);

CREATE TABLE audit_log (
    id             bigserial   PRIMARY KEY,
    at             timestamptz NOT NULL,
    actor          text        NOT NULL,
    -- the organization the call acted in, when it acted in one
    organization   text,
    method         text        NOT NULL,
    path           text        NOT NULL,
    status         integer     NOT NULL,
    remote_address text
);

CREATE INDEX audit_log_organization_at ON audit_log (organization, at DESC);
