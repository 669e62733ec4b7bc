-- A trigger without branch or tag builds the repository's default branch, which only the plan builder knows (it is
-- the mirror's HEAD once fetched): such a pipeline is stored with neither while pending, and gets its branch before
-- its config is read. It may also error before that (the repository cannot be fetched).
ALTER TABLE pipeline DROP CONSTRAINT pipeline_branch_or_tag;
ALTER TABLE pipeline ADD CONSTRAINT pipeline_branch_or_tag
    CHECK ((branch IS NULL OR tag IS NULL) AND (branch IS NOT NULL OR tag IS NOT NULL OR state IN ('pending', 'errored')));

-- GET /project/{slug}/pipeline?branch=B, newest first.
CREATE INDEX pipeline_project_branch ON pipeline (project_id, branch, number);

-- Who did what, as CircleCI's API shows it (started_by, canceled_by, approved_by): the login of the API caller
-- (today always 'admin'); the API shows ids derived from it. Null: nobody did (or, for started_by, the pipeline's
-- trigger actor started it).
ALTER TABLE workflow ADD COLUMN started_by text;
ALTER TABLE workflow ADD COLUMN canceled_by text;
ALTER TABLE job ADD COLUMN approved_by text;
ALTER TABLE job ADD COLUMN canceled_by text;
