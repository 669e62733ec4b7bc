-- given_up_at: when the lease sweeper gave the task up as lost (its infrastructure_fail is the server's, not one the
-- agent reported). A completion that arrives after that counts if no other attempt of the job has started yet; else
-- what it reported is kept in superseded_status/superseded_at without changing the outcome.
ALTER TABLE job_task
    ADD COLUMN given_up_at       timestamptz,
    ADD COLUMN superseded_status text,
    ADD COLUMN superseded_at     timestamptz;
