-- When retention deleted a workspace layer's archive. The row stays, so a job that would attach the layer (a rerun of
-- an old workflow) is told that the workspace expired instead of being handed the part of it that is left.
ALTER TABLE workspace_layer ADD COLUMN expired_at timestamptz;
