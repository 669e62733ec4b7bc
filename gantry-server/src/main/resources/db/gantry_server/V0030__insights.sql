-- Insights (docs/ui.md, docs/server.md): the page and the API read workflow runs through this one view, so what a
-- run is stays written once. A run is a workflow that finished with an outcome (success, failed or error; canceled
-- and not-run workflows are not runs); its duration is from its creation to its stop, in seconds.
CREATE VIEW workflow_run AS
SELECT w.id, w.name, w.status, w.created_at, w.stopped_at, p.project_id, p.branch, p.number AS pipeline_number,
       p.revision, extract(epoch FROM w.stopped_at - w.created_at) AS seconds
FROM workflow w
JOIN pipeline p ON p.id = w.pipeline_id
WHERE w.status IN ('success', 'failed', 'error')
  AND w.stopped_at IS NOT NULL;

-- The repository's default branch as the plan builder last read it (the mirror's HEAD): the insights API's scope
-- when a request names neither a branch nor all branches, as CircleCI's. Null until a pipeline was planned.
ALTER TABLE project ADD COLUMN default_branch text;

-- The insights read a project's jobs (and through them its test results) by creation time: this index keeps the
-- scan to the window however long the project's history is.
CREATE INDEX job_project_created ON job (project_id, created_at);
