-- Outbound notifications (docs/notifications.md): project webhooks, the events they are told of, and each delivery
-- with its attempts. An event and its deliveries are written in the transaction of the state change they report;
-- the durable queue (queue notify-webhook) then runs each delivery, and this log outlives the queue's retention.

-- A project's webhook in CircleCI's shape. The signing secret is sealed like a secret (V0012): the value under the
-- data key signing_secret_key, with the webhook's id as associated data; it is never returned by the API.
CREATE TABLE webhook (
    id                  uuid        PRIMARY KEY,
    project_id          uuid        NOT NULL REFERENCES project (id),
    name                text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    url                 text        NOT NULL CHECK (length(url) BETWEEN 1 AND 2000),
    verify_tls          boolean     NOT NULL,
    events              text[]      NOT NULL CHECK (cardinality(events) > 0),
    signing_secret      bytea       NOT NULL,
    signing_secret_key  uuid        NOT NULL REFERENCES data_key (id),
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);
CREATE INDEX webhook_of_project ON webhook (project_id);

-- Something that happened, with a snapshot of what it concerns taken at the change. One row per change: the unique
-- (type, subject) is what keeps a repeated transaction from reporting a completion twice.
CREATE TABLE notify_event (
    id           uuid        PRIMARY KEY,
    type         text        NOT NULL CHECK (type IN ('workflow-completed', 'job-completed')),
    subject_id   uuid        NOT NULL,
    project_id   uuid        NOT NULL,
    happened_at  timestamptz NOT NULL,
    snapshot     jsonb       NOT NULL,
    CONSTRAINT notify_event_once UNIQUE (type, subject_id)
);

-- One event to one destination of one channel (webhook: destination_id is the webhook's id), at most once.
-- turn counts the queue messages the delivery has had: only the message of the current turn acts, so a message
-- that runs again after a crash, or one a redeliver replaced, changes nothing.
CREATE TABLE notify_delivery (
    id                 uuid        PRIMARY KEY,
    channel            text        NOT NULL,
    destination_id     uuid        NOT NULL,
    event_id           uuid        NOT NULL REFERENCES notify_event (id),
    state              text        NOT NULL CHECK (state IN ('pending', 'delivered', 'dead')),
    attempts           int         NOT NULL DEFAULT 0,
    turn               int         NOT NULL DEFAULT 0,
    -- The retry window runs from here: the delivery's creation, or its last manual redeliver.
    window_started_at  timestamptz NOT NULL,
    next_attempt_at    timestamptz,
    -- Why the delivery waits without an attempt (an open circuit, a busy destination), while it does.
    waiting_reason     text,
    dead_reason        text,
    delivered_at       timestamptz,
    created_at         timestamptz NOT NULL,
    CONSTRAINT notify_delivery_once UNIQUE (channel, destination_id, event_id)
);
CREATE INDEX notify_delivery_of_destination ON notify_delivery (channel, destination_id, created_at DESC);

-- The delivery log: every attempt, what answered (a status code) or what went wrong, and how long it took.
CREATE TABLE notify_attempt (
    delivery_id  uuid        NOT NULL REFERENCES notify_delivery (id) ON DELETE CASCADE,
    number       int         NOT NULL,
    started_at   timestamptz NOT NULL,
    duration_ms  bigint      NOT NULL CHECK (duration_ms >= 0),
    status_code  int,
    error        text,
    PRIMARY KEY (delivery_id, number)
);
