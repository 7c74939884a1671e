-- Google Play version sync: per project, a link to its app on Google Play, read through the Google Play Developer
-- API with the team's service account, whose live release keeps chosen parameters in step. The service account's
-- private key is sealed like every secret (`rc-sealed-v1:`); its e-mail and key id are shown and kept plain.
-- Syncs are claimed as store_links' are (claim_token, claimed_until), so each happens once across replicas.
-- Never edit once landed.

CREATE TABLE google_play_links (
    project_id          text PRIMARY KEY REFERENCES projects (project_id),
    enabled             boolean NOT NULL DEFAULT true,
    package_name        text NOT NULL CHECK (package_name ~ '^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$'),
    track               text NOT NULL DEFAULT 'production' CHECK (track ~ '^[A-Za-z0-9:_-]{1,100}$'),
    interval_seconds    integer NOT NULL DEFAULT 3600 CHECK (interval_seconds BETWEEN 60 AND 2592000),
    -- Target parameter → release field, in the order people wrote them: [{"parameter": …, "field": …}, …].
    parameters          json NOT NULL DEFAULT '[]',
    -- The condition whose conditional values receive the release's values; NULL: the default values.
    condition_name      text,
    staged_rollouts     text NOT NULL DEFAULT 'COMPLETED_ONLY' CHECK (staged_rollouts IN ('COMPLETED_ONLY', 'ANY_LIVE')),
    auto_approve        boolean NOT NULL DEFAULT false,
    client_email        text NOT NULL,
    private_key_id      text NOT NULL,
    private_key         text NOT NULL CHECK (private_key LIKE 'rc-sealed-v1:%'),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    revision            bigint NOT NULL DEFAULT nextval('settings_revisions'),
    -- Status: the last attempt, the live release it read last ({"name", "versionCode", "status", "userFraction"}),
    -- and why the last attempt failed (NULL after a success).
    last_sync_time      timestamptz,
    last_release        json,
    last_error          text,
    failures            integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    next_sync_at        timestamptz NOT NULL DEFAULT now(),
    claim_token         uuid,
    claimed_until       timestamptz
);

CREATE INDEX google_play_links_due ON google_play_links (next_sync_at) WHERE enabled;
