-- Endpoint health, probes and automatic recovery, a rate limit per endpoint, and the previous
-- secret kept for the rotation overlap (docs/webhooks.md, "Endpoint health", "Rate limit",
-- "Standard Webhooks").
--
-- The health columns live on the subscription row: the UPDATE that moves `health_state` is the
-- claim on the transition (a second process finds the state already moved and does nothing), and
-- `next_probe_at` is moved forward by the process that sends a probe, so no probe goes out twice.
ALTER TABLE webhooks ADD COLUMN health_state text NOT NULL DEFAULT 'healthy'
  CHECK (health_state IN ('healthy', 'failing', 'disabled'));
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;
ALTER TABLE webhooks ADD COLUMN last_success_at timestamptz;
ALTER TABLE webhooks ADD COLUMN disabled_at timestamptz;
-- false: no probes and no automatic re-sends (the endpoint still turns failing and is disabled)
ALTER TABLE webhooks ADD COLUMN auto_recover boolean NOT NULL DEFAULT true;
-- when the next probe (or, at the latest, the disable check) is due while failing; probes sent so far
ALTER TABLE webhooks ADD COLUMN next_probe_at timestamptz;
ALTER TABLE webhooks ADD COLUMN probes_sent integer NOT NULL DEFAULT 0;
-- the last mail to the tenant's admins about this endpoint (at most one a day)
ALTER TABLE webhooks ADD COLUMN owner_mailed_at timestamptz;
-- deliveries a second (null: no limit) and the earliest time the next attempt may start
ALTER TABLE webhooks ADD COLUMN rate_limit integer CHECK (rate_limit BETWEEN 1 AND 10000);
ALTER TABLE webhooks ADD COLUMN pace_next_at timestamptz;
-- the secret replaced by the last rotation, still signed with until the overlap ends
ALTER TABLE webhooks ADD COLUMN previous_secret_encrypted text;
ALTER TABLE webhooks ADD COLUMN secret_rotated_at timestamptz;

CREATE INDEX webhooks_probe_due_idx ON webhooks (next_probe_at) WHERE health_state = 'failing';
-- the failed deliveries of one endpoint that wait for recovery, and "has it been re-sent"
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (webhook_id, created_at)
  WHERE status = 'failed';
CREATE INDEX webhook_deliveries_redelivery_of_idx ON webhook_deliveries (redelivery_of)
  WHERE redelivery_of IS NOT NULL;
