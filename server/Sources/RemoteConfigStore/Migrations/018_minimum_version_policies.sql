-- A project's minimum-version policy: the limits within which the server may raise one platform's minimum
-- supported version by itself, and what its last check found. Never edit once landed.
CREATE TABLE minimum_version_policies (
    project_id             text PRIMARY KEY REFERENCES projects (project_id) ON DELETE CASCADE,
    enabled                boolean NOT NULL DEFAULT true,
    platform               text NOT NULL CHECK (platform IN ('IOS', 'ANDROID', 'WEB')),
    parameter              text NOT NULL,
    condition              text,
    max_blocked_share      double precision NOT NULL CHECK (max_blocked_share BETWEEN 0 AND 1),
    min_active_instances   bigint NOT NULL CHECK (min_active_instances >= 0),
    never_above            text,
    keep_behind_latest     integer NOT NULL CHECK (keep_behind_latest BETWEEN 0 AND 1000),
    check_interval_seconds integer NOT NULL CHECK (check_interval_seconds BETWEEN 60 AND 2592000),
    action                 text NOT NULL CHECK (action IN ('CHANGE_REQUEST', 'PUBLISH')),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    revision               bigint NOT NULL DEFAULT nextval('settings_revisions'),
    -- The last check: when, what it decided, the version the fleet recommended, and the figures in words.
    last_check_time        timestamptz,
    last_result            text CHECK (last_result IN ('RAISED', 'PROPOSED', 'UNCHANGED', 'NOT_ENOUGH_DATA', 'LIMITED')),
    last_recommendation    text,
    last_detail            text,
    -- The change request the policy opened last; while it is open, a check opens no other.
    open_request_id        bigint,
    next_check_at          timestamptz NOT NULL DEFAULT now(),
    -- The replica checking now holds the policy until `claimed_until` under `claim_token` (as store links do), so
    -- each check happens on exactly one replica.
    claim_token            uuid,
    claimed_until          timestamptz
);

CREATE INDEX minimum_version_policies_due ON minimum_version_policies (next_check_at) WHERE enabled;
