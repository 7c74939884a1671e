-- Rollouts: a new value for a growing share of apps, one published step at a time, halted at once. The
-- server carries out the plan; every step, halt and completion is a version published under the project's row
-- lock, so each happens exactly once across the servers sharing this database. Never edit once landed.

CREATE TABLE rollouts (
    rollout_id        bigserial PRIMARY KEY,
    project_id        text NOT NULL REFERENCES projects (project_id),
    parameter         text NOT NULL,
    value             text NOT NULL,
    -- A condition expression narrowing who may get the value; NULL for everyone.
    audience          text,
    -- [{"percent": 1, "holdSeconds": 3600}, …], percents increasing in (0, 100].
    steps             json NOT NULL,
    description       text NOT NULL DEFAULT '',
    state             text NOT NULL
                      CHECK (state IN ('PROPOSED', 'RUNNING', 'PAUSED', 'HALTED', 'COMPLETED')),
    -- The step published last (-1 before the first).
    current_step      integer NOT NULL DEFAULT -1 CHECK (current_step >= -1),
    -- When the next step is due while RUNNING; NULL at the last step and in every other state.
    next_step_at      timestamptz,
    -- While PAUSED: how much of the step's hold was left, so resuming keeps the plan's pace.
    hold_remaining    interval,
    pause_reason      text CHECK (pause_reason IN ('MANUAL', 'EDITED', 'STEP_FAILED')),
    -- SHA-256 of the halt token (`rch_…`), shown once at creation, as API keys are kept.
    halt_token_hash   bytea NOT NULL UNIQUE,
    author_key        text,
    author_name       text NOT NULL,
    -- The change request that carries the plan while the project requires approval.
    change_request    bigint REFERENCES change_requests (request_id),
    -- The version that halted or completed it.
    end_version       bigint,
    ended_at          timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (project_id, end_version) REFERENCES template_versions (project_id, version_number),
    CHECK (state <> 'PAUSED' OR pause_reason IS NOT NULL),
    CHECK (state = 'RUNNING' OR next_step_at IS NULL)
);

CREATE INDEX rollouts_by_project ON rollouts (project_id, rollout_id DESC);
-- What every replica's scheduler polls: only the running ones.
CREATE INDEX rollouts_due ON rollouts (next_step_at) WHERE state = 'RUNNING';
-- One live rollout per parameter: two would fight over its value.
CREATE UNIQUE INDEX rollouts_one_live_per_parameter ON rollouts (project_id, parameter)
    WHERE state IN ('PROPOSED', 'RUNNING', 'PAUSED');
CREATE UNIQUE INDEX rollouts_by_change_request ON rollouts (change_request) WHERE change_request IS NOT NULL;

-- Every step published, once: the primary key is what makes a step published twice impossible.
CREATE TABLE rollout_steps (
    rollout_id     bigint NOT NULL REFERENCES rollouts (rollout_id),
    step           integer NOT NULL CHECK (step >= 0),
    percent        double precision NOT NULL,
    project_id     text NOT NULL,
    version_number bigint NOT NULL,
    published_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (rollout_id, step),
    FOREIGN KEY (project_id, version_number) REFERENCES template_versions (project_id, version_number)
);
