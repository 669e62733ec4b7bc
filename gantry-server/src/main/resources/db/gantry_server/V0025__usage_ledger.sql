-- The usage ledger (docs/usage.md): one row per task attempt that ran on an agent, written in the transaction that
-- ended the task, never updated. A job's attempt is its own job row (a retry, a rerun), so (job_id, node_index) is
-- the task attempt, and the primary key is what makes a duplicate completion, a late one or a retried transaction
-- unable to charge twice. No foreign keys: the ledger is a bill and outlives the runs it charges.
CREATE TABLE usage_charge (
    job_id              uuid        NOT NULL,
    node_index          int         NOT NULL,
    attempt             int         NOT NULL,
    organization        text        COLLATE "C" NOT NULL,
    project_id          uuid        NOT NULL,
    project_name        text        COLLATE "C" NOT NULL,
    job_name            text        NOT NULL,
    -- Who started the workflow: the rerun's caller, else the pipeline's trigger actor.
    actor               text        NOT NULL,
    resource_class      text        NOT NULL,
    agent_id            uuid,
    started_at          timestamptz NOT NULL,
    ended_at            timestamptz NOT NULL,
    run_ms              bigint      NOT NULL CHECK (run_ms >= 0),
    -- Started minutes: at least one, as CircleCI bills.
    minutes             bigint      NOT NULL CHECK (minutes >= 1),
    credits_per_minute  int         NOT NULL CHECK (credits_per_minute >= 0),
    credits             bigint      NOT NULL CHECK (credits >= 0),
    -- The UTC day the task ended; reports and budgets count by it.
    day                 date        NOT NULL,
    charged_at          timestamptz NOT NULL,
    -- Written by a backfill rather than by the task's end (the organization's charging was off then).
    backfilled          boolean     NOT NULL,
    PRIMARY KEY (job_id, node_index)
);
CREATE INDEX usage_charge_day ON usage_charge (organization, day);

-- Per organization: whether its task ends are charged as they happen (absent: yes), and its monthly budget.
CREATE TABLE usage_organization (
    organization            text        COLLATE "C" PRIMARY KEY,
    charging                boolean     NOT NULL DEFAULT true,
    monthly_budget_credits  bigint      CHECK (monthly_budget_credits > 0),
    updated_at              timestamptz NOT NULL,
    updated_by              text        NOT NULL
);

-- Each organization's credits per UTC month, kept by the charges' own transactions: the row lock serialises them,
-- so each charge knows exactly which total it moved from and to, and a budget threshold is crossed by one of them.
CREATE TABLE usage_month (
    organization  text    COLLATE "C" NOT NULL,
    month         date    NOT NULL CHECK (extract(day FROM month) = 1),
    credits       bigint  NOT NULL CHECK (credits >= 0),
    PRIMARY KEY (organization, month)
);

-- A budget threshold crossed, once per organization, month and threshold, in the transaction of the charge (or of
-- the budget change) that crossed it. The notifier (issue 33's status updates) is to deliver these and set
-- delivered_at; until it exists nothing does, and the usage API shows them as undelivered.
CREATE TABLE usage_budget_alert (
    organization       text        COLLATE "C" NOT NULL,
    month              date        NOT NULL,
    threshold_percent  int         NOT NULL CHECK (threshold_percent IN (80, 100)),
    budget_credits     bigint      NOT NULL,
    credits            bigint      NOT NULL,
    crossed_at         timestamptz NOT NULL,
    delivered_at       timestamptz,
    PRIMARY KEY (organization, month, threshold_percent)
);

-- The backfill looks for ended tasks by the time they ended (the sweeper's give-up, else their stop).
CREATE INDEX job_task_ended ON job_task ((coalesce(given_up_at, stopped_at))) WHERE accepted_at IS NOT NULL;
