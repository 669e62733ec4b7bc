-- Delivery turns waiting to be moved to their queue shard (GANTRY_QUEUE_SHARDS): written in the transaction that makes
-- the turn due, so it commits or rolls back with the state change, and deleted once the shard has the message. Only
-- used when shards are configured; the set of rows stays as small as the relay is behind.
CREATE TABLE notify_relay (
    delivery_id  uuid        NOT NULL REFERENCES notify_delivery (id) ON DELETE CASCADE,
    turn         int         NOT NULL,
    -- The shard of the delivery's project, by the queue's frozen routing; each shard's relay takes only its own.
    shard        int         NOT NULL CHECK (shard >= 0),
    run_at       timestamptz,
    organization text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (delivery_id, turn)
);

CREATE INDEX notify_relay_by_shard ON notify_relay (shard, created_at);
