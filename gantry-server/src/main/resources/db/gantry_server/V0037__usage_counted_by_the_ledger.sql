-- The ledger's bulkhead (docs/usage.md): a task's end inserts its charge and queues it (queue usage-count); the
-- ledger's own workers add it to usage_month and record the budget alerts it crosses, and mark it counted here, in
-- the same transaction, so each charge is counted once. The month's row lock is then never held by a task's end.
ALTER TABLE usage_charge ADD COLUMN counted_at timestamptz;
-- Charges made before this were counted in their own transaction.
UPDATE usage_charge SET counted_at = charged_at;
