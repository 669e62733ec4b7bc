-- The user and password (or token) of a repo_url like https://bot:TOKEN@github.com/acme/app.git are not kept in
-- vcs_url, which holds the URL without them, but sealed like a secret (see V0012): the credentials themselves, under
-- the data key vcs_credentials_key. Fetches and checkouts put them back into the URL they use.
ALTER TABLE project
    ADD COLUMN vcs_credentials     bytea,
    ADD COLUMN vcs_credentials_key uuid REFERENCES data_key (id);
