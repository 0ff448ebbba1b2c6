-- SLA policies on business time: the tenant's business hours and policies, each ticket's and
-- conversation's SLA state in its own row (so the list filters and the queue sort read one index
-- that starts with the tenant), the due-time indexes the scheduled breach check scans, and kept
-- counts of breached rows so the `total` of `sla_breached=...` is a few rows at any size.

CREATE TABLE business_hours (
  id         text PRIMARY KEY,
  tenant_id  text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name       text NOT NULL,
  timezone   text NOT NULL,
  intervals  jsonb NOT NULL DEFAULT '[]',
  holidays   jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX business_hours_tenant_created_idx ON business_hours (tenant_id, created_at, id);

CREATE TABLE sla_policies (
  id                     text PRIMARY KEY,
  tenant_id              text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name                   text NOT NULL,
  position               integer NOT NULL,
  -- deleting hours a policy uses is refused (409 by the API; RESTRICT behind it)
  business_hours_id      text REFERENCES business_hours (id) ON DELETE RESTRICT,
  conditions             jsonb NOT NULL DEFAULT '{}',
  first_response_minutes integer,
  resolution_minutes     integer,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sla_policies_tenant_position_idx ON sla_policies (tenant_id, position, id);

-- The same SLA columns on both records. `sla_resolution_started_at` is when the resolution clock
-- last started (creation, or the latest reopening); `sla_due_at` is the earliest due time not yet
-- met (what `sla_due_before` and `sort=sla_due_at` read); `sla_check_at` the earliest of those
-- not yet breached (what the breach check reads); `sla_breached` is either breach.
-- Constant defaults: adding them rewrites no existing row.
ALTER TABLE tickets
  ADD COLUMN sla_policy_id text,
  ADD COLUMN sla_first_response_due_at timestamptz,
  ADD COLUMN sla_first_response_at timestamptz,
  ADD COLUMN sla_first_response_breached boolean NOT NULL DEFAULT false,
  ADD COLUMN sla_resolution_started_at timestamptz,
  ADD COLUMN sla_resolution_due_at timestamptz,
  ADD COLUMN sla_resolution_breached boolean NOT NULL DEFAULT false,
  ADD COLUMN sla_due_at timestamptz,
  ADD COLUMN sla_check_at timestamptz,
  ADD COLUMN sla_breached boolean NOT NULL DEFAULT false;
ALTER TABLE conversations
  ADD COLUMN sla_policy_id text,
  ADD COLUMN sla_first_response_due_at timestamptz,
  ADD COLUMN sla_first_response_at timestamptz,
  ADD COLUMN sla_first_response_breached boolean NOT NULL DEFAULT false,
  ADD COLUMN sla_resolution_started_at timestamptz,
  ADD COLUMN sla_resolution_due_at timestamptz,
  ADD COLUMN sla_resolution_breached boolean NOT NULL DEFAULT false,
  ADD COLUMN sla_due_at timestamptz,
  ADD COLUMN sla_check_at timestamptz,
  ADD COLUMN sla_breached boolean NOT NULL DEFAULT false;

-- The lists: `sla_breached` in the default order (newest first), and the due time (the queue's
-- order and `sla_due_before`), each starting with the tenant. Only rows with a due time are in
-- the second: a record under no policy, or with every target met, is in no queue.
CREATE INDEX tickets_tenant_sla_breached_created_idx ON tickets (tenant_id, sla_breached, created_at DESC, id DESC);
CREATE INDEX tickets_tenant_sla_due_idx ON tickets (tenant_id, sla_due_at, id) WHERE sla_due_at IS NOT NULL;
CREATE INDEX conversations_tenant_sla_breached_created_idx
  ON conversations (tenant_id, sla_breached, created_at DESC, id DESC);
CREATE INDEX conversations_tenant_sla_due_idx ON conversations (tenant_id, sla_due_at, id)
  WHERE sla_due_at IS NOT NULL;

-- The scheduled breach check (every tenant at once): `sla_check_at` is the earliest due time not
-- yet met and not yet breached, null when none is left, so met and breached rows leave the index.
CREATE INDEX tickets_sla_check_idx ON tickets (sla_check_at) WHERE sla_check_at IS NOT NULL;
CREATE INDEX conversations_sla_check_idx ON conversations (sla_check_at) WHERE sla_check_at IS NOT NULL;

-- Kept counts of `sla_breached` true/false, beside the lists' other counts (field 'sla_breached'),
-- by triggers of their own so the lists' existing count triggers stay as they are. Signed per
-- statement like those: an update that moves no row between true and false writes nothing.
CREATE FUNCTION ticket_sla_counts_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, sla_breached, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, sla_breached, -1 AS sign FROM old_rows'
    ELSE 'SELECT tenant_id, sla_breached, 1 AS sign FROM new_rows
          UNION ALL SELECT tenant_id, sla_breached, -1 FROM old_rows'
  END;
BEGIN
  EXECUTE format($q$
    WITH changed AS (%s), keyed AS (
      SELECT tenant_id, sla_breached::text AS value, sum(sign) AS d FROM changed
       GROUP BY 1, 2 HAVING sum(sign) <> 0
    )
    INSERT INTO ticket_filter_counts AS fc (tenant_id, field, value, n)
      SELECT tenant_id, 'sla_breached', value, d FROM keyed ORDER BY 1, 2
    ON CONFLICT (tenant_id, field, value) DO UPDATE SET n = fc.n + excluded.n$q$, changed);
  RETURN NULL;
END $$;

CREATE FUNCTION conversation_sla_counts_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, sla_breached, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, sla_breached, -1 AS sign FROM old_rows'
    ELSE 'SELECT tenant_id, sla_breached, 1 AS sign FROM new_rows
          UNION ALL SELECT tenant_id, sla_breached, -1 FROM old_rows'
  END;
BEGIN
  EXECUTE format($q$
    WITH changed AS (%s), keyed AS (
      SELECT tenant_id, sla_breached::text AS value, sum(sign) AS d FROM changed
       GROUP BY 1, 2 HAVING sum(sign) <> 0
    )
    INSERT INTO list_filter_counts AS fc (tenant_id, list, field, value, n)
      SELECT tenant_id, 'conversations', 'sla_breached', value, d FROM keyed ORDER BY 1, 2
    ON CONFLICT (tenant_id, list, field, value) DO UPDATE SET n = fc.n + excluded.n$q$, changed);
  RETURN NULL;
END $$;

CREATE TRIGGER tickets_sla_count_insert AFTER INSERT ON tickets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_sla_counts_on_change();
CREATE TRIGGER tickets_sla_count_update AFTER UPDATE ON tickets
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_sla_counts_on_change();
CREATE TRIGGER tickets_sla_count_delete AFTER DELETE ON tickets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_sla_counts_on_change();
CREATE TRIGGER conversations_sla_count_insert AFTER INSERT ON conversations
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION conversation_sla_counts_on_change();
CREATE TRIGGER conversations_sla_count_update AFTER UPDATE ON conversations
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION conversation_sla_counts_on_change();
CREATE TRIGGER conversations_sla_count_delete AFTER DELETE ON conversations
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION conversation_sla_counts_on_change();

-- The rows written before the triggers existed: none is breached yet.
INSERT INTO ticket_filter_counts (tenant_id, field, value, n)
  SELECT tenant_id, 'sla_breached', 'false', count(*) FROM tickets GROUP BY 1;
INSERT INTO list_filter_counts (tenant_id, list, field, value, n)
  SELECT tenant_id, 'conversations', 'sla_breached', 'false', count(*) FROM conversations GROUP BY 1;
