-- When a delivery reached its final state (delivered or dead), so retention can drop the log some time after it
-- (RetentionSweeper); NULL while pending, and again after a manual redeliver. Deliveries already final take their
-- delivery time, or for dead ones the start of their retry window (they died within it).
ALTER TABLE notify_delivery ADD COLUMN finished_at timestamptz;
UPDATE notify_delivery SET finished_at = coalesce(delivered_at, window_started_at) WHERE state <> 'pending';
CREATE INDEX notify_delivery_finished ON notify_delivery (finished_at) WHERE finished_at IS NOT NULL;
-- Finding an event's deliveries, to drop an event once none is left.
CREATE INDEX notify_delivery_of_event ON notify_delivery (event_id);
