-- Webhook subscriptions and their deliveries (one row per event per subscription).
-- Deliveries are the retry schedule: the dispatcher claims due rows with a lease, so two
-- processes never send the same attempt and a killed process's claim expires and is picked up again.

CREATE TABLE webhooks (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  url              text NOT NULL,
  -- catalog names, or the single literal '*'
  events           text[] NOT NULL CHECK (cardinality(events) >= 1),
  -- AES-GCM sealed signing secret (shared/crypto.ts encryptSecret); never stored in the clear
  secret_encrypted text NOT NULL,
  is_active        boolean NOT NULL DEFAULT true,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  -- soft delete: the delivery log (and the usage metering that reads it) outlives the subscription
  deleted_at       timestamptz
);
CREATE INDEX webhooks_tenant_live_idx ON webhooks (tenant_id, created_at) WHERE deleted_at IS NULL;

CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  webhook_id       text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  -- the outbox event it came from (null never happens today; kept nullable for imports)
  event_id         text,
  event_type       text NOT NULL,
  -- the envelope's data and timestamp, copied so the delivery outlives outbox cleanup
  payload          jsonb NOT NULL,
  event_created_at timestamptz NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz,
  -- lease of the process sending the next attempt (null = unclaimed)
  claimed_until    timestamptz,
  claim_token      text,
  last_attempt_at  timestamptz,
  response_status  integer,
  duration_ms      integer,
  error            text,
  -- redelivery/recover: the delivery this one re-sends
  redelivery_of    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, created_at);
-- one delivery per (event, subscription): a re-run fan-out cannot duplicate
CREATE UNIQUE INDEX webhook_deliveries_event_once_idx ON webhook_deliveries (event_id, webhook_id)
  WHERE event_id IS NOT NULL AND redelivery_of IS NULL;
