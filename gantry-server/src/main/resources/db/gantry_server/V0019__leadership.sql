-- One row per job that only one server of a database may do at a time (the autoscaler). holder is the server
-- instance id (ServerInstance). term grows by one when the holder changes; beats by one on each renewal, so the other
-- servers can tell a live holder from a silent one by watching it move, without comparing their clocks.
CREATE TABLE leadership (
    role       text        PRIMARY KEY,
    holder     text        NOT NULL,
    term       bigint      NOT NULL,
    beats      bigint      NOT NULL,
    renewed_at timestamptz NOT NULL
);
