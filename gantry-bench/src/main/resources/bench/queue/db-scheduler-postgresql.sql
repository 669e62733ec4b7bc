-- The table db-scheduler 16.x reads and writes on PostgreSQL, with the indexes its PostgreSQL DDL
-- (db-scheduler/src/test/resources/postgresql_tables.sql in github.com/kagkarlsson/db-scheduler, which the jar does not
-- bundle) creates: by execution time for polling, by heartbeat for dead-execution detection, and by priority.
-- That file's trailing migrations (a nullable execution_time, a state column) serve later versions; 16.x uses neither.
-- Keep this in step with that file when the db-scheduler version in the root pom changes.
CREATE TABLE scheduled_tasks (
    task_name            text                     NOT NULL,
    task_instance        text                     NOT NULL,
    task_data            bytea,
    execution_time       timestamp with time zone NOT NULL,
    picked               boolean                  NOT NULL,
    picked_by            text,
    last_success         timestamp with time zone,
    last_failure         timestamp with time zone,
    consecutive_failures integer,
    last_heartbeat       timestamp with time zone,
    version              bigint                   NOT NULL,
    priority             smallint,
    PRIMARY KEY (task_name, task_instance)
);
CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC);
