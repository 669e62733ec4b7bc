-- Job output in the database, for servers that share their blobs in S3 (GANTRY_BLOB_STORE): an agent's output calls
-- may reach any server of the database and readers may ask any, so the stream of each (job, node) lives here rather
-- than under one server's GANTRY_HOME. A stream is its pieces in order, each starting where the one before it ended;
-- an appender inserts at the end it read, so two that read the same end collide on the primary key and the loser
-- reads the end again (storage.DatabaseOutputStore). bytea values are compressed and moved out of line by TOAST.
-- No foreign key to job: its check would take a share lock on the job row, which a completing task holds locked
-- while its output tail is appended.
CREATE TABLE output_piece (
    job_id       uuid   NOT NULL,
    node_index   int    NOT NULL CHECK (node_index >= 0),
    start_offset bigint NOT NULL CHECK (start_offset >= 0),
    data         bytea  NOT NULL CHECK (length(data) > 0),
    PRIMARY KEY (job_id, node_index, start_offset)
);
