-- Webhooks: what the outbox keeps is bounded. Never edit once landed.

-- Delivered and failed deliveries are pruned by the age of their last attempt: that question stays an index scan.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (last_attempt_at) WHERE state <> 'PENDING';
