-- A sealed partition is attached to the archive while the hot table is locked. The archive's index on (id) matched
-- none of the partition's indexes, so every seal built one there, under that lock; the archive now has the same key
-- as the hot table, which the partition's own primary key index serves.
DROP INDEX message_archive_id;
ALTER TABLE message_archive ADD PRIMARY KEY (id, epoch);
