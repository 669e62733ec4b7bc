-- Between vacuums, a partial index on state = 1 holds an entry for every message that has run, not only for those
-- running now, and a bitmap scan cannot skip the dead ones. The planner, believing such an index small, used it to
-- find the messages a batch of completions names (one whole-index scan per message), which made completions cost
-- more as throughput rose. So no index is partial on state = 1: the sweeper's index is keyed on the lease itself
-- (set exactly while a message is running), and a limited queue's running count uses it too.
DROP INDEX message_running;
DROP INDEX message_leased;
CREATE INDEX message_leased ON message (lease_until) WHERE lease_until IS NOT NULL;
