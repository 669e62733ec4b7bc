-- The status page counts the notifications made over its windows (5 and 60 minutes) every 10 seconds.
CREATE INDEX notify_delivery_created ON notify_delivery (created_at);
