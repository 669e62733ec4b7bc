-- Budget alerts are delivered (docs/usage.md): each recorded alert records, in its transaction, a 'budget-alert'
-- notify_event whose subject_id is the alert's id, with one delivery per Slack or e-mail destination of the
-- organization's projects that asks for budget alerts. Those deliveries say what became of it.
ALTER TABLE usage_budget_alert ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE;
-- One time of delivery was a placeholder for a single recipient; an alert now goes to any number of destinations,
-- each delivered (or not) at its own time, and nothing ever set it.
ALTER TABLE usage_budget_alert DROP COLUMN delivered_at;
