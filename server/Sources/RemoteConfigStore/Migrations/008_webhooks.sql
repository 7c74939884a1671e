-- Webhooks: per project, endpoints told about changes, and the outbox of their deliveries. A delivery row is
-- inserted in the transaction of the change it reports, so a change that rolls back leaves none. Never edit
-- once landed.

CREATE TABLE webhooks (
    webhook_id          text PRIMARY KEY,
    project_id          text NOT NULL REFERENCES projects (project_id),
    url                 text NOT NULL,
    -- Event types, or '*' for all.
    events              text[] NOT NULL,
    format              text NOT NULL DEFAULT 'JSON' CHECK (format IN ('JSON', 'SLACK')),
    description         text NOT NULL DEFAULT '',
    enabled             boolean NOT NULL DEFAULT true,
    -- The server signs with these, so they are kept as they are (a hash could not sign). After a rotation the
    -- previous secret signs beside the new one until `previous_expires_at`.
    secret              text NOT NULL,
    previous_secret     text,
    previous_expires_at timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX webhooks_by_project ON webhooks (project_id) WHERE enabled;

-- One delivery of one event to one webhook; `seq` orders the events of a webhook.
CREATE TABLE webhook_deliveries (
    seq             bigserial PRIMARY KEY,
    delivery_id     text NOT NULL UNIQUE,
    webhook_id      text NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
    project_id      text NOT NULL,
    event_type      text NOT NULL,
    actor_key       text,
    actor_name      text NOT NULL DEFAULT '',
    -- The event's facts, as the change's transaction knew them.
    data            json NOT NULL DEFAULT '{}',
    -- The request body, made once at the first attempt and sent unchanged on every retry.
    body            text,
    state           text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DELIVERED', 'FAILED')),
    attempts        integer NOT NULL DEFAULT 0,
    last_status     integer,
    last_error      text,
    last_attempt_at timestamptz,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    -- The server sending it now holds it until `lease_until` under `lease_token`; one that dies mid-delivery
    -- lets go when the lease runs out, and another server sends it again under the same delivery id.
    lease_token     uuid,
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- "Which delivery is the oldest pending one of each webhook?" stays an index scan.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, seq) WHERE state = 'PENDING';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq DESC);
