-- The stats count dead messages across the whole archive (a day of messages by default) at every metrics refresh.
-- Dead messages are few: a partial index keeps that count to them instead of a scan of every archived message. The
-- hot table has the same index, so a sealed partition brings a matching one to the archive and attaching it builds
-- nothing. Only a message that dies gets an entry, so claims and completions do not maintain it.
CREATE INDEX message_dead ON message (queue) WHERE state = 3;
CREATE INDEX message_archive_dead ON message_archive (queue) WHERE state = 3;
