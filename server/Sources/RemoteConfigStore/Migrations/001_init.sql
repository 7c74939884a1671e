-- remote-config: initial schema. Never edit once landed: add 002_….sql instead.

CREATE TABLE projects (
    project_id     text PRIMARY KEY CHECK (project_id ~ '^[a-z][a-z0-9-]{2,62}$'),
    display_name   text NOT NULL DEFAULT '',
    -- The newest published version number; 0 before the first publish. Publishing locks this row,
    -- so version numbers stay contiguous whatever the concurrency.
    latest_version bigint NOT NULL DEFAULT 0 CHECK (latest_version >= 0),
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Immutable published versions. The template is kept as `json` (not jsonb) so key order,
-- which people see in the console and in exports, survives exactly.
CREATE TABLE template_versions (
    project_id      text NOT NULL REFERENCES projects (project_id),
    version_number  bigint NOT NULL CHECK (version_number >= 1),
    template        json NOT NULL,
    update_time     timestamptz NOT NULL DEFAULT now(),
    update_user     text NOT NULL DEFAULT '',
    update_origin   text NOT NULL DEFAULT 'REST_API',
    update_type     text NOT NULL CHECK (update_type IN ('INCREMENTAL_UPDATE', 'FORCED_UPDATE', 'ROLLBACK')),
    description     text NOT NULL DEFAULT '',
    rollback_source bigint,
    PRIMARY KEY (project_id, version_number)
);

-- History is never rewritten: the database itself refuses UPDATE and DELETE of a version.
CREATE FUNCTION template_versions_are_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'template_versions is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER template_versions_append_only
    BEFORE UPDATE OR DELETE ON template_versions
    FOR EACH ROW EXECUTE FUNCTION template_versions_are_append_only();

CREATE TRIGGER template_versions_no_truncate
    BEFORE TRUNCATE ON template_versions
    FOR EACH STATEMENT EXECUTE FUNCTION template_versions_are_append_only();

-- Draft revisions come from one sequence, so an ETag of a discarded draft never matches a new one.
CREATE SEQUENCE draft_revisions;

-- One server-side draft per project.
CREATE TABLE drafts (
    project_id   text PRIMARY KEY REFERENCES projects (project_id),
    template     json NOT NULL,
    revision     bigint NOT NULL DEFAULT nextval('draft_revisions'),
    base_version bigint NOT NULL DEFAULT 0 CHECK (base_version >= 0),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    updated_by   text NOT NULL DEFAULT ''
);

-- API keys: only the SHA-256 of the secret is stored.
CREATE TABLE api_keys (
    key_id       text PRIMARY KEY,
    display_name text NOT NULL DEFAULT '',
    role         text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer', 'client')),
    project_id   text REFERENCES projects (project_id),
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    key_prefix   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz,
    CHECK (role <> 'client' OR project_id IS NOT NULL)
);

CREATE TABLE audit_events (
    event_id   bigserial PRIMARY KEY,
    project_id text REFERENCES projects (project_id),
    time       timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor      text NOT NULL,
    action     text NOT NULL,
    detail     json NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_events_by_project ON audit_events (project_id, event_id DESC);

-- Listing versions newest first by time window stays an index scan.
CREATE INDEX template_versions_by_time ON template_versions (project_id, update_time DESC);
