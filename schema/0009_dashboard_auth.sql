-- Dashboard sign-in (functions/auth, docs/auth.md): passwords of tenant users, sessions with
-- rotating single-use refresh tokens, one-time invite and password-reset tokens, and the failed
-- sign-in counters. Every token is stored only as HMAC-SHA256(API_KEY_HASH_SECRET, token).

-- pbkdf2-sha256$<iterations>$<salt b64>$<hash b64> (shared/auth/password.ts); null until the
-- invite is accepted. A disabled user cannot sign in.
ALTER TABLE tenant_users ADD COLUMN password_hash text;
ALTER TABLE tenant_users ADD COLUMN disabled_at timestamptz;

-- One row per sign-in; its refresh tokens rotate inside it. Revoked on logout, on a spent refresh
-- token presented again (reuse detection), on a password reset and on a lowered role.
CREATE TABLE dashboard_sessions (
  id              text PRIMARY KEY,
  tenant_id       text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES tenant_users (id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- the session cannot be refreshed past this (absolute lifetime)
  expires_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  revoked_reason  text
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id) WHERE revoked_at IS NULL;

CREATE TABLE dashboard_refresh_tokens (
  token_hash  text PRIMARY KEY,
  session_id  text NOT NULL REFERENCES dashboard_sessions (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  -- set when exchanged: presenting it again revokes the session
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_refresh_tokens_session_idx ON dashboard_refresh_tokens (session_id);

-- One-time tokens mailed to a user: an invite (set the first password) or a password reset.
CREATE TABLE tenant_user_tokens (
  token_hash  text PRIMARY KEY,
  purpose     text NOT NULL CHECK (purpose IN ('invite', 'password_reset')),
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES tenant_users (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tenant_user_tokens_user_idx ON tenant_user_tokens (user_id);

-- Failed sign-ins per account (lower-cased email) and per client IP: a fixed window of failures,
-- then a lock (functions/auth/throttle.ts).
CREATE TABLE auth_throttle (
  key               text PRIMARY KEY,
  failures          integer NOT NULL DEFAULT 0,
  window_started_at timestamptz NOT NULL DEFAULT now(),
  locked_until      timestamptz
);
