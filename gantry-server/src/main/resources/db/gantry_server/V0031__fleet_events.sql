-- What the autoscaler did and saw (launches, shortages, drains, terminations), written by the server that leads it,
-- so that every server's fleet page and API show the same actions, and a new leader shows its predecessor's.
-- Kept a week: the leader deletes older rows once an hour, a few hundred rows a day, nothing a queue would carry.
CREATE TABLE fleet_event (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at           timestamptz NOT NULL,
    kind         text        NOT NULL,
    cluster      text        NOT NULL,
    type         text        NOT NULL,
    -- Empty when the event concerns a type rather than one instance (a shortage).
    instance_id  text        NOT NULL,
    message      text        NOT NULL,
    -- The server instance that led the autoscaler then.
    server       text        NOT NULL
);
CREATE INDEX fleet_event_at ON fleet_event (at);
