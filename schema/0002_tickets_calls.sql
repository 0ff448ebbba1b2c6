-- Tickets, their replies, voice calls and escalation attempts.
-- Value sets are CHECK constraints so a bug that slips past validation is a 4xx, never bad data.

CREATE TABLE tickets (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  subject          text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 255),
  description      text NOT NULL DEFAULT '',
  status           text NOT NULL DEFAULT 'open'
                   CHECK (status IN ('new', 'open', 'pending', 'on_hold', 'resolved', 'closed')),
  priority         text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
  type             text NOT NULL DEFAULT 'question'
                   CHECK (type IN ('question', 'incident', 'problem', 'service_request', 'change')),
  source           text NOT NULL DEFAULT 'api'
                   CHECK (source IN ('api', 'dashboard', 'email', 'phone', 'web', 'chat', 'end_user')),
  requester_id     text,
  requester_name   text,
  requester_email  text,
  assignee_id      text,
  tags             text[] NOT NULL DEFAULT '{}',
  call_id          text,
  reply_count      integer NOT NULL DEFAULT 0,
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  resolved_at      timestamptz,
  closed_at        timestamptz
);
-- Newest first, the default listing (and the deferred-join page of ids: index-only scan).
CREATE INDEX tickets_tenant_created_idx ON tickets (tenant_id, created_at DESC, id DESC);
-- Incremental mirroring: sort=updated_at / updated_since.
CREATE INDEX tickets_tenant_updated_idx ON tickets (tenant_id, updated_at, id);
CREATE INDEX tickets_tenant_status_created_idx ON tickets (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX tickets_tenant_requester_created_idx ON tickets (tenant_id, requester_id, created_at DESC, id DESC)
  WHERE requester_id IS NOT NULL;
CREATE INDEX tickets_tenant_assignee_created_idx ON tickets (tenant_id, assignee_id, created_at DESC, id DESC)
  WHERE assignee_id IS NOT NULL;
CREATE INDEX tickets_tags_idx ON tickets USING gin (tags);
CREATE INDEX tickets_call_idx ON tickets (call_id) WHERE call_id IS NOT NULL;

-- Live ticket count per tenant, so the unfiltered list's `total` is one row read instead of a
-- count over every ticket of the tenant (100,000 index entries: ~20 ms). Kept by statement-level
-- triggers (one upsert per statement, so bulk inserts stay cheap). No FK: a tenant's row outlives
-- nothing that matters, and the cascade from tenants must not race the trigger.
CREATE TABLE ticket_counts (
  tenant_id text PRIMARY KEY,
  n         bigint NOT NULL DEFAULT 0
);

CREATE FUNCTION ticket_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ticket_counts AS tc (tenant_id, n)
    SELECT tenant_id, count(*) FROM inserted GROUP BY tenant_id
  ON CONFLICT (tenant_id) DO UPDATE SET n = tc.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION ticket_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ticket_counts AS tc SET n = tc.n - d.n
    FROM (SELECT tenant_id, count(*) AS n FROM deleted GROUP BY tenant_id) AS d
   WHERE tc.tenant_id = d.tenant_id;
  RETURN NULL;
END $$;

CREATE TRIGGER tickets_count_insert AFTER INSERT ON tickets
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_on_insert();
CREATE TRIGGER tickets_count_delete AFTER DELETE ON tickets
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION ticket_counts_on_delete();

CREATE TABLE ticket_replies (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  ticket_id   text NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  body        text NOT NULL,
  -- agent (dashboard session), api (API key), requester (end user), system
  author_type text NOT NULL CHECK (author_type IN ('agent', 'api', 'requester', 'system')),
  author_id   text,
  is_public   boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_replies_ticket_idx ON ticket_replies (ticket_id, created_at, id);

CREATE TABLE calls (
  id                 text PRIMARY KEY,
  tenant_id          text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  channel            text NOT NULL DEFAULT 'phone',
  direction          text NOT NULL DEFAULT 'inbound' CHECK (direction IN ('inbound', 'outbound')),
  caller_phone       text,
  telephony_call_sid text,
  media_room_id      text,
  started_at         timestamptz NOT NULL,
  ended_at           timestamptz,
  duration_seconds   integer CHECK (duration_seconds >= 0),
  outcome            text CHECK (outcome IN ('ticket_created', 'status_checked', 'kb_article', 'escalated', 'hung_up', 'error')),
  recording_url      text,
  ticket_id          text REFERENCES tickets (id) ON DELETE SET NULL,
  detected_language  text,
  summary            text,
  escalated_at       timestamptz,
  -- set once, by the one completion report that wins (UPDATE ... WHERE completed_at IS NULL)
  completed_at       timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX calls_tenant_started_idx ON calls (tenant_id, started_at DESC, id DESC);
CREATE INDEX calls_tenant_updated_idx ON calls (tenant_id, updated_at, id);
CREATE INDEX calls_tenant_caller_idx ON calls (tenant_id, caller_phone) WHERE caller_phone IS NOT NULL;
-- a retried "call persisted" report with the same carrier id is the same call
CREATE UNIQUE INDEX calls_tenant_sid_key ON calls (tenant_id, telephony_call_sid)
  WHERE telephony_call_sid IS NOT NULL;

ALTER TABLE tickets ADD CONSTRAINT tickets_call_fk FOREIGN KEY (call_id) REFERENCES calls (id) ON DELETE SET NULL;

-- Every escalation attempt the voice agent reports, successful or not.
CREATE TABLE call_escalations (
  id           text PRIMARY KEY,
  tenant_id    text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  call_id      text NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
  -- what the transfer returned
  result       text NOT NULL CHECK (result IN ('transferred', 'failed')),
  reason       text NOT NULL,
  route        text,
  -- masked as in the event (last 4 digits / sip:[REDACTED]); the raw target is never stored
  destination  text,
  failure      text,
  -- whether call.escalated was emitted for this attempt
  emitted      boolean NOT NULL,
  escalated_at timestamptz NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX call_escalations_call_idx ON call_escalations (call_id, created_at);
