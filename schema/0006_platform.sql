-- Platform area: usage metering, tenant settings (config), billing, directory (end users and
-- tenant users), magic links of the end-user API, and export jobs.

-- One row per metered API request (written off the request path, batched). Call minutes,
-- conversations and webhook deliveries are not copied here: they are derived at query time from
-- the events outbox and webhook_deliveries (see docs/platform.md).
CREATE TABLE usage_records (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  kind        text NOT NULL DEFAULT 'api_requests',
  quantity    integer NOT NULL DEFAULT 1 CHECK (quantity >= 0),
  method      text,
  endpoint    text,
  status      integer,
  -- api_key id, or null for dashboard / end-user requests
  api_key_id  text,
  actor       text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_records_tenant_created_idx ON usage_records (tenant_id, created_at DESC, id DESC);

-- One usage.reported per tenant per period: the primary key makes the report idempotent.
CREATE TABLE usage_reports (
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  period      text NOT NULL,
  event_id    text NOT NULL,
  totals      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, period)
);

-- Per-tenant settings, one row per section (general, branding, channels, onboarding, telephony,
-- integration:<provider>). Secret fields live in `secrets`, AES-GCM sealed, and are never read back.
CREATE TABLE tenant_settings (
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  section     text NOT NULL,
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
  secrets     jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, section)
);

-- Billing contact and payment method; the card is kept as brand + last 4 digits only.
CREATE TABLE billing_accounts (
  tenant_id       text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  billing_email   text,
  payment_method  jsonb,
  billing_address jsonb,
  tax_id          text,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- End users (requesters) of a tenant: they use the end-user API (/api/v1/app/*).
CREATE TABLE end_users (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email         text NOT NULL,
  name          text,
  -- pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>; null for magic-link-only users
  password_hash text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX end_users_tenant_email_idx ON end_users (tenant_id, lower(email));
CREATE INDEX end_users_tenant_created_idx ON end_users (tenant_id, created_at DESC, id DESC);

-- One-time magic-link tokens, stored as SHA-256 of the token.
CREATE TABLE end_user_magic_links (
  token_hash  text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  end_user_id text NOT NULL REFERENCES end_users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Dashboard users of a tenant (agents and admins).
CREATE TABLE tenant_users (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email       text NOT NULL,
  name        text,
  role        text NOT NULL CHECK (role IN ('agent', 'tenant_admin')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tenant_users_tenant_email_idx ON tenant_users (tenant_id, lower(email));
CREATE INDEX tenant_users_tenant_created_idx ON tenant_users (tenant_id, created_at DESC, id DESC);

-- Export jobs; the produced file is kept inline (exports are capped, see docs/platform.md).
CREATE TABLE export_jobs (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  resource      text NOT NULL CHECK (resource IN ('tickets', 'calls', 'contacts', 'conversations', 'usage')),
  format        text NOT NULL CHECK (format IN ('csv', 'json')),
  filters       jsonb NOT NULL DEFAULT '{}'::jsonb,
  status        text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  row_count     integer,
  content       text,
  error         text,
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz
);
CREATE INDEX export_jobs_tenant_created_idx ON export_jobs (tenant_id, created_at DESC, id DESC);
