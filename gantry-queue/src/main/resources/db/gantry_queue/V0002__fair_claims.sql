-- Claims serve groups (tenants) round-robin within a priority, so they walk the ready messages group by group.
DROP INDEX message_ready;
CREATE INDEX message_ready ON message (queue, priority, group_key, run_at, id) WHERE state = 0;

-- Per-queue limits and the ramp after a resume.
ALTER TABLE queue
    ADD COLUMN max_running    integer CHECK (max_running > 0),
    ADD COLUMN max_per_second real    CHECK (max_per_second > 0),
    ADD COLUMN ramp_from      real    NOT NULL DEFAULT 1 CHECK (ramp_from > 0 AND ramp_from <= 1),
    ADD COLUMN ramp_seconds   integer NOT NULL DEFAULT 0 CHECK (ramp_seconds >= 0),
    ADD COLUMN resumed_at     timestamptz;
