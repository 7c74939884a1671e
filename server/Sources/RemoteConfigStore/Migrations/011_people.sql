-- People: who signs in with the team's OpenID Connect provider, their sessions, the role bindings that give
-- them roles, and the person behind every key, change and approval. Never edit once landed.

-- A person, as the provider identifies them: `sub` is unique per issuer, and nothing else is stable (an email
-- can change hands). What the provider said at the last sign-in is kept for display and for bindings.
CREATE TABLE users (
    user_id         text PRIMARY KEY,
    issuer          text NOT NULL,
    subject         text NOT NULL,
    email           text NOT NULL DEFAULT '',
    email_verified  boolean NOT NULL DEFAULT false,
    display_name    text NOT NULL DEFAULT '',
    groups          text[] NOT NULL DEFAULT '{}',
    first_sign_in   timestamptz NOT NULL DEFAULT now(),
    last_sign_in    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (issuer, subject)
);

-- A signed-in browser (`console`) or a command line's personal token (`personal`). Only the SHA-256 of the
-- secret is stored, so a dump of this table opens nothing.
CREATE TABLE user_sessions (
    session_id    text PRIMARY KEY,
    secret_hash   bytea NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
    user_id       text NOT NULL REFERENCES users (user_id),
    kind          text NOT NULL CHECK (kind IN ('console', 'personal')),
    csrf_token    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    revoked_at    timestamptz
);

CREATE INDEX user_sessions_by_user ON user_sessions (user_id) WHERE revoked_at IS NULL;

-- Who gets which role: a person by verified email, everyone of a group, or everyone of a verified email
-- domain; on one project, or on every project (project_id NULL).
CREATE TABLE role_bindings (
    binding_id      text PRIMARY KEY,
    member          text NOT NULL CHECK (member ~ '^(user|group|domain):.+$'),
    role            text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
    project_id      text REFERENCES projects (project_id),
    created_at      timestamptz NOT NULL DEFAULT now(),
    created_by_user text,
    created_by_key  text,
    created_by_name text NOT NULL DEFAULT '',
    -- Made at start from --oidc-admins, not by anyone.
    bootstrap       boolean NOT NULL DEFAULT false
);

CREATE UNIQUE INDEX role_bindings_unique ON role_bindings (member, role, coalesce(project_id, ''));

-- A sign-in under way: the state sent to the provider, kept until the callback uses it (once) or for ten
-- minutes. Stored, not held in memory, so that the callback may reach any server sharing the database.
-- A command line's sign-in through a loopback redirect (RFC 8252) has `redirect_uri` (its own listener on
-- 127.0.0.1) and no `code_verifier`: the command line holds its PKCE verifier and sends it with the code.
CREATE TABLE sign_in_states (
    state_hash     bytea PRIMARY KEY CHECK (octet_length(state_hash) = 32),
    nonce          text NOT NULL,
    code_verifier  text,
    next_path      text NOT NULL,
    redirect_uri   text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((redirect_uri IS NULL) = (code_verifier IS NOT NULL))
);

-- A key made by a person (or through a person's key) is theirs: its role never exceeds its owner's.
ALTER TABLE api_keys
    ADD COLUMN owner_user   text REFERENCES users (user_id),
    ADD COLUMN last_used_at timestamptz;

-- The person behind each event, beside the key (NULL for keys without an owner and the server's own work).
ALTER TABLE audit_events
    ADD COLUMN actor_user  text,
    ADD COLUMN actor_email text;

-- The person who opened a change request.
ALTER TABLE change_requests
    ADD COLUMN author_user  text,
    ADD COLUMN author_email text,
    ADD COLUMN closed_by_user text;

-- An approval is a person's (through a session or a key) or an ownerless key's: `identity` is `user:<id>` or
-- `key:<id>`, one approval per identity and request, so two keys of one person are one approval.
ALTER TABLE change_request_approvals
    ADD COLUMN user_id  text,
    ADD COLUMN email    text,
    ADD COLUMN identity text;
UPDATE change_request_approvals SET identity = 'key:' || key_id;
ALTER TABLE change_request_approvals
    ALTER COLUMN identity SET NOT NULL,
    DROP CONSTRAINT change_request_approvals_pkey,
    ALTER COLUMN key_id DROP NOT NULL,
    ADD PRIMARY KEY (request_id, identity);

-- The author never approves their own request, through a key or as a person, whatever the code above does.
CREATE OR REPLACE FUNCTION change_request_approvals_not_by_author() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM change_requests
               WHERE request_id = NEW.request_id
                 AND ((NEW.key_id IS NOT NULL AND author_key = NEW.key_id)
                      OR (NEW.user_id IS NOT NULL AND author_user = NEW.user_id))) THEN
        RAISE EXCEPTION 'the author of change request % cannot approve it', NEW.request_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

-- The person who started a rollout.
ALTER TABLE rollouts
    ADD COLUMN author_user  text,
    ADD COLUMN author_email text;

-- The person behind each webhook event, for the payload's `actor`.
ALTER TABLE webhook_deliveries
    ADD COLUMN actor_user  text,
    ADD COLUMN actor_email text;
