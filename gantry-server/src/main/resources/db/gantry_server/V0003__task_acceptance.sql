-- When the agent holding a task first renewed its lease: proof that it got the claim's answer and runs the task.
-- A claim answered to an agent that had died during its long poll is never accepted; when its lease runs out the
-- task goes back to the queue, instead of counting as a lost agent and spending the job's one retry.
ALTER TABLE job_task ADD COLUMN accepted_at timestamptz;
