-- Webhooks: what the outbox keeps is bounded, and the audit log keeps no webhook URL's secret part. Webhooks and
-- store links carry a revision, which their ETags name. Never edit once landed.

-- Delivered and failed deliveries are pruned by the age of their last attempt: that question stays an index scan.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (last_attempt_at) WHERE state <> 'PENDING';

-- A write with a stale If-Match is refused instead of overwriting another admin's. One sequence for both, so
-- that a revision is never reused (a deleted and recreated row never matches an ETag read before).
CREATE SEQUENCE settings_revisions;
ALTER TABLE webhooks ADD COLUMN revision bigint NOT NULL DEFAULT nextval('settings_revisions');
ALTER TABLE store_links ADD COLUMN revision bigint NOT NULL DEFAULT nextval('settings_revisions');

-- The audit log, which viewers read, keeps a webhook's URL as scheme and host only: a Slack webhook's path is
-- its credential. Entries recorded before are redacted the same way.
UPDATE audit_events
SET detail = jsonb_set(
        detail::jsonb, '{url}',
        to_jsonb(coalesce(substring(detail->>'url' from '^([A-Za-z][A-Za-z0-9+.-]*://(\[[0-9A-Fa-f:.]*\]|[^/?#:@]*))'), '')))::json
WHERE action = 'webhook.create' AND detail->>'url' IS NOT NULL;
