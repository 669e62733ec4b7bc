-- What an operator set for dispatch (docs/reliability.md, "Self-protection"): one row, shared by every server of the
-- database. A hold stops job starts, planning and workflow advances until resumed; a resume may ramp back; the
-- ramp columns, when set, replace the configured ramp of the automatic self-pause.
CREATE TABLE dispatch_control (
    singleton             boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    held_at               timestamptz,
    hold_reason           text,
    resumed_at            timestamptz,
    resume_ramp_from      real,
    resume_ramp_seconds   integer,
    self_ramp_from        real,
    self_ramp_seconds     integer
);
INSERT INTO dispatch_control DEFAULT VALUES;
