-- Groups of users in an organization, and contexts restricted to groups: a job may use a restricted context only
-- when its pipeline's actor is in one of the context's groups (as CircleCI's security-group restrictions).
CREATE TABLE user_group_member (
    organization text        NOT NULL,
    group_name   text        NOT NULL,
    user_id      uuid        NOT NULL REFERENCES app_user (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (organization, group_name, user_id)
);

CREATE TABLE context_restriction (
    id          uuid        PRIMARY KEY,
    context_id  uuid        NOT NULL REFERENCES context (id) ON DELETE CASCADE,
    group_name  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    CONSTRAINT context_restriction_group UNIQUE (context_id, group_name)
);
