-- Integrator extras: Idempotency-Key replay store (embedded runtime) and the audit log.

CREATE TABLE idempotency_keys (
  tenant_id        text NOT NULL,
  -- the credential that sent it: api_key:<id> or user:<sub>
  credential       text NOT NULL,
  idempotency_key  text NOT NULL,
  fingerprint      text NOT NULL,
  -- in_progress | done
  state            text NOT NULL,
  response_status  integer,
  response_headers jsonb,
  response_body    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, credential, idempotency_key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);

CREATE TABLE audit_log (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  actor       text NOT NULL,
  action      text NOT NULL,
  target_type text NOT NULL,
  target_id   text NOT NULL,
  source_ip   text,
  metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_tenant_created_idx ON audit_log (tenant_id, created_at DESC, id DESC);
