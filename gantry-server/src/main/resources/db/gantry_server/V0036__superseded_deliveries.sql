-- A workflow's start (a pending commit status) not yet sent when the same destination has a delivery of the
-- workflow's end is superseded: never sent, as it would set the forge's status back to pending (docs/notifications.md).
ALTER TABLE notify_delivery DROP CONSTRAINT notify_delivery_state_check;
ALTER TABLE notify_delivery ADD CONSTRAINT notify_delivery_state_check
    CHECK (state IN ('pending', 'delivered', 'dead', 'superseded'));
