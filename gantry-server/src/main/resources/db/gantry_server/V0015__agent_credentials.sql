-- Agents prove who they are. A registration token (the server's agent-token file, for every pool, or one an
-- organization admin issues for some pools) only registers; registration answers a credential of the agent's own,
-- whose hash is kept here, and every later call (claims, heartbeats, reports) must carry it: an agent claims for
-- itself only, and touches only the tasks leased to it.
CREATE TABLE agent_registration_token (
    id           uuid        PRIMARY KEY,
    token_hash   bytea       NOT NULL UNIQUE,
    organization text        NOT NULL,
    pools        text[]      NOT NULL,
    label        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);

ALTER TABLE agent
    ADD COLUMN credential_hash       bytea UNIQUE,
    ADD COLUMN registration_token_id uuid REFERENCES agent_registration_token (id);
