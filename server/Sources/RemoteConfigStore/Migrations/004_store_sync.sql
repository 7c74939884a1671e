-- Store version sync: per project, a link to its App Store listing whose fields keep chosen STRING parameters
-- in step. Never edit once landed.

CREATE TABLE store_links (
    project_id         text PRIMARY KEY REFERENCES projects (project_id),
    enabled            boolean NOT NULL DEFAULT true,
    app_store_id       text NOT NULL CHECK (app_store_id ~ '^[0-9]{1,20}$'),
    country            text NOT NULL DEFAULT 'us' CHECK (country ~ '^[a-z]{2}$'),
    interval_seconds   integer NOT NULL DEFAULT 3600 CHECK (interval_seconds BETWEEN 60 AND 2592000),
    -- Target parameter → store field, in the order people wrote them: [{"parameter": …, "field": …}, …].
    parameters         json NOT NULL DEFAULT '[]',
    auto_approve       boolean NOT NULL DEFAULT false,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    -- Status: the last attempt (successful or not), the version the store answered last, and why the last
    -- attempt failed (NULL after a success).
    last_sync_time     timestamptz,
    last_store_version text,
    last_error         text,
    -- Consecutive failed attempts: the backoff grows with them and a success resets them.
    failures           integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    next_sync_at       timestamptz NOT NULL DEFAULT now(),
    -- The replica syncing the link now holds it until `claimed_until` under `claim_token`: a claim is taken with
    -- FOR UPDATE SKIP LOCKED (or an UPDATE that rechecks it), so exactly one replica syncs at a time, and a
    -- replica that dies mid-sync lets go when its lease runs out. Writes of a sync check the token.
    claim_token        uuid,
    claimed_until      timestamptz
);

-- The background loop's question, "which enabled link is due?", stays an index scan.
CREATE INDEX store_links_due ON store_links (next_sync_at) WHERE enabled;
