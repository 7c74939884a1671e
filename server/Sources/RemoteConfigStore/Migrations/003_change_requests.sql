-- The publish workflow: a project may require approved change requests for every publish; a change request
-- is an immutable snapshot of a template, approved by other keys, published now or at a set time.

ALTER TABLE projects
    ADD COLUMN require_approval   boolean NOT NULL DEFAULT false,
    ADD COLUMN approvals_required integer NOT NULL DEFAULT 1 CHECK (approvals_required BETWEEN 1 AND 10);

CREATE TABLE change_requests (
    request_id        bigserial PRIMARY KEY,
    project_id        text NOT NULL REFERENCES projects (project_id),
    state             text NOT NULL DEFAULT 'OPEN'
                      CHECK (state IN ('OPEN', 'APPROVED', 'SCHEDULED', 'PUBLISHED', 'REJECTED', 'CANCELLED')),
    description       text NOT NULL DEFAULT '',
    -- The key that opened it; NULL only for the server's own (a store sync), never for a person.
    author_key        text REFERENCES api_keys (key_id),
    author_name       text NOT NULL,
    -- The published version it was made against (0: none yet); publishing over a later one needs force.
    base_version      bigint NOT NULL CHECK (base_version >= 0),
    template          json NOT NULL,
    rollback_source   bigint,
    publish_time      timestamptz,
    -- Approved by the server itself when opened (a store sync with autoApprove), needing no key's approval.
    auto_approved     boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    published_version bigint,
    -- Who rejected or cancelled it, when and why.
    closed_by_key     text REFERENCES api_keys (key_id),
    closed_by_name    text,
    closed_at         timestamptz,
    close_comment     text,
    FOREIGN KEY (project_id, published_version) REFERENCES template_versions (project_id, version_number),
    FOREIGN KEY (project_id, rollback_source) REFERENCES template_versions (project_id, version_number),
    -- A version comes from at most one change request.
    UNIQUE (project_id, published_version),
    -- Published exactly when it names its version.
    CHECK ((state = 'PUBLISHED') = (published_version IS NOT NULL)),
    -- Waiting for a time only when it has one.
    CHECK (state <> 'SCHEDULED' OR publish_time IS NOT NULL),
    -- Rejected or cancelled exactly when someone closed it.
    CHECK ((state IN ('REJECTED', 'CANCELLED')) = (closed_at IS NOT NULL AND closed_by_name IS NOT NULL))
);

CREATE INDEX change_requests_by_project ON change_requests (project_id, request_id DESC);
-- What every replica's scheduler polls: only the waiting ones.
CREATE INDEX change_requests_due ON change_requests (publish_time) WHERE state = 'SCHEDULED';

CREATE TABLE change_request_approvals (
    request_id   bigint NOT NULL REFERENCES change_requests (request_id),
    key_id       text NOT NULL REFERENCES api_keys (key_id),
    display_name text NOT NULL,
    comment      text NOT NULL DEFAULT '',
    approved_at  timestamptz NOT NULL DEFAULT now(),
    -- One approval per key and request.
    PRIMARY KEY (request_id, key_id)
);

-- The author never approves their own request, whatever the code above the database does.
CREATE FUNCTION change_request_approvals_not_by_author() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM change_requests WHERE request_id = NEW.request_id AND author_key = NEW.key_id) THEN
        RAISE EXCEPTION 'the author of change request % cannot approve it', NEW.request_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER change_request_approvals_not_by_author
    BEFORE INSERT OR UPDATE ON change_request_approvals
    FOR EACH ROW EXECUTE FUNCTION change_request_approvals_not_by_author();
