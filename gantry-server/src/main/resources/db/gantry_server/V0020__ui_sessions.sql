-- Web UI sign-ins. The cookie carries a random session id; only its SHA-256 is kept here. A session keeps the hash
-- of the token it signed in with and asks again on every request who that token is, so revoking the token (or it
-- expiring) ends its sessions. csrf is the token every form of the session must send back.
CREATE TABLE ui_session (
    id_hash     bytea       PRIMARY KEY CHECK (length(id_hash) = 32),
    token_kind  text        NOT NULL CHECK (token_kind IN ('admin', 'user')),
    token_hash  bytea       NOT NULL CHECK (length(token_hash) = 32),
    csrf        text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX ui_session_expiry ON ui_session (expires_at);
