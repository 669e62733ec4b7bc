-- A queue with a concurrency limit counts its running messages on every claim.
CREATE INDEX message_running ON message (queue) WHERE state = 1;
