-- Tenants, API keys and the event outbox: what every function needs.

CREATE TABLE tenants (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  plan        text NOT NULL CHECK (plan IN ('free', 'starter', 'pro', 'enterprise')),
  environment text NOT NULL CHECK (environment IN ('production', 'staging', 'sandbox')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name         text NOT NULL,
  description  text,
  key_prefix   text NOT NULL,
  -- keyed hash of the whole key; the key itself is never stored
  key_hash     text NOT NULL UNIQUE,
  environment  text NOT NULL CHECK (environment IN ('live', 'test')),
  scopes       text[] NOT NULL CHECK (cardinality(scopes) >= 1),
  created_by   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_tenant_created_idx ON api_keys (tenant_id, created_at DESC, id DESC);

-- Outbox: a domain event is written in the same transaction as the action that caused it,
-- then fanned out to webhook deliveries by the dispatcher (so a crash after commit loses nothing).
CREATE TABLE events (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  event_type    text NOT NULL,
  payload       jsonb NOT NULL,
  -- clock_timestamp(), not now(): events of one transaction keep the order they were emitted in
  -- (conversation.created before message.received), which fan-out and consumers rely on
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  dispatched_at timestamptz
);
CREATE INDEX events_pending_idx ON events (created_at) WHERE dispatched_at IS NULL;
CREATE INDEX events_tenant_type_idx ON events (tenant_id, event_type, created_at DESC);
