-- The retention sweep reads each table's oldest rows first, every hour; without these it read every row to find them
-- (an artifact table holds a row per stored file, millions on a busy server).
CREATE INDEX cache_entry_created ON cache_entry (created_at);
CREATE INDEX artifact_created ON artifact (created_at);
CREATE INDEX workspace_layer_unexpired ON workspace_layer (created_at) WHERE expired_at IS NULL;
