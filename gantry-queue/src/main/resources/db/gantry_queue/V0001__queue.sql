-- The durable queue. Messages live in partitions by epoch (a short span of enqueue time). Claims and completions
-- update rows in place, but only the newest epochs are attached to the hot table: an old epoch's unfinished
-- messages are moved forward and the epoch is detached into the archive, then dropped whole after retention.
-- So the rows and index entries that claims scan stay few, and cleanup makes no dead tuples, whatever vacuum can do.

CREATE TABLE queue (
    name           text PRIMARY KEY,
    paused         boolean     NOT NULL DEFAULT false,
    changed_at     timestamptz NOT NULL
);

CREATE TABLE epoch (
    epoch      integer PRIMARY KEY,
    opened_at  timestamptz NOT NULL,
    sealed_at  timestamptz
);

CREATE SEQUENCE message_id AS bigint CACHE 64;

-- state: 0 ready, 1 running (leased), 2 done, 3 dead (attempts exhausted or fatal), 4 replayed (dead, then re-enqueued)
CREATE TABLE message (
    epoch        integer     NOT NULL,
    id           bigint      NOT NULL,
    queue        text        NOT NULL,
    state        smallint    NOT NULL,
    priority     smallint    NOT NULL,
    group_key    text        NOT NULL,
    run_at       timestamptz NOT NULL,
    attempt      integer     NOT NULL,
    max_attempts integer     NOT NULL,
    unique_key   text,
    payload      text        NOT NULL,
    lease_until  timestamptz,
    worker       text,
    last_error   text,
    enqueued_at  timestamptz NOT NULL,
    finished_at  timestamptz,
    PRIMARY KEY (id, epoch)
) PARTITION BY LIST (epoch);

-- What claims scan: ready messages only, in claim order.
CREATE INDEX message_ready ON message (queue, priority DESC, run_at, id) WHERE state = 0;
-- What the sweeper scans: leased messages by expiry.
CREATE INDEX message_leased ON message (lease_until) WHERE state = 1;
-- Duplicate enqueues find the existing message.
CREATE INDEX message_unique_key ON message (queue, unique_key) WHERE unique_key IS NOT NULL;

-- Sealed epochs: finished messages kept for lookups and de-duplication until retention drops them.
CREATE TABLE message_archive (LIKE message) PARTITION BY LIST (epoch);
CREATE INDEX message_archive_id ON message_archive (id);
CREATE INDEX message_archive_unique_key ON message_archive (queue, unique_key) WHERE unique_key IS NOT NULL;
