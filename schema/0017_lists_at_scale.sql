-- Lists whose cost does not grow with the tenant: an index that starts with the tenant for every
-- documented filter (so no filter reads another tenant's rows), and counts kept per
-- (tenant, filter, value) for the filters with a small value set, so the `total` of a page
-- filtered by one of them is a few rows read instead of a count over every match.

-- The tag filters: a GIN index over `tenant:tag` keys, so `tag=x` finds this tenant's tagged rows only
-- (a GIN index over the tags alone returned every tenant's). Tenant ids carry no ':', so the first
-- ':' ends the tenant.
CREATE FUNCTION tenant_tag_keys(tenant text, tags text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ARRAY(SELECT tenant || ':' || t FROM unnest(tags) AS t);

-- tickets: priority, type, call_id and tag (status, requester, assignee, created and updated
-- already have theirs); each filter index ends with the list's order, so its first page and a
-- cursor page are a range read.
CREATE INDEX tickets_tenant_priority_created_idx ON tickets (tenant_id, priority, created_at DESC, id DESC);
CREATE INDEX tickets_tenant_type_created_idx ON tickets (tenant_id, type, created_at DESC, id DESC);
CREATE INDEX tickets_tenant_call_idx ON tickets (tenant_id, call_id) WHERE call_id IS NOT NULL;
CREATE INDEX tickets_tenant_tags_idx ON tickets USING gin (tenant_tag_keys(tenant_id, tags));
DROP INDEX tickets_tags_idx;

-- calls: outcome, direction, channel, status (completed or not), ticket
CREATE INDEX calls_tenant_outcome_started_idx ON calls (tenant_id, outcome, started_at DESC, id DESC);
CREATE INDEX calls_tenant_direction_started_idx ON calls (tenant_id, direction, started_at DESC, id DESC);
CREATE INDEX calls_tenant_channel_started_idx ON calls (tenant_id, channel, started_at DESC, id DESC);
CREATE INDEX calls_tenant_completed_started_idx
  ON calls (tenant_id, (completed_at IS NOT NULL), started_at DESC, id DESC);
CREATE INDEX calls_tenant_ticket_idx ON calls (tenant_id, ticket_id) WHERE ticket_id IS NOT NULL;

-- conversations: status, channel, assignees (contact_id has conversations_contact_channel_idx)
CREATE INDEX conversations_tenant_status_created_idx ON conversations (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX conversations_tenant_channel_created_idx ON conversations (tenant_id, channel, created_at DESC, id DESC);
CREATE INDEX conversations_tenant_user_created_idx ON conversations (tenant_id, assignee_user_id, created_at DESC, id DESC)
  WHERE assignee_user_id IS NOT NULL;
CREATE INDEX conversations_tenant_team_created_idx ON conversations (tenant_id, assignee_team_id, created_at DESC, id DESC)
  WHERE assignee_team_id IS NOT NULL;

-- contacts and companies: company and tag (the `q` substring search has no index: see docs/benchmarks.md)
CREATE INDEX contacts_tenant_company_created_idx ON contacts (tenant_id, company_id, created_at DESC, id DESC)
  WHERE company_id IS NOT NULL;
CREATE INDEX contacts_tenant_tags_idx ON contacts USING gin (tenant_tag_keys(tenant_id, tags));
CREATE INDEX companies_tenant_tags_idx ON companies USING gin (tenant_tag_keys(tenant_id, tags));

-- audit: action, target, actor
CREATE INDEX audit_log_tenant_action_created_idx ON audit_log (tenant_id, action, created_at DESC, id DESC);
CREATE INDEX audit_log_tenant_target_created_idx ON audit_log (tenant_id, target_id, created_at DESC, id DESC);
CREATE INDEX audit_log_tenant_actor_created_idx ON audit_log (tenant_id, actor, created_at DESC, id DESC);

-- Live counts per (tenant, filter, value) of the tickets' status, priority, type, requester,
-- assignee and tags: the `total` of a page filtered by one of them (values of a comma list are
-- summed). A requester's or an assignee's count grows with the tenant as a status's does. Kept by
-- statement-level triggers like ticket_counts: one upsert per statement and (tenant, field, value),
-- in key order so concurrent writers lock the same rows in the same order.
CREATE TABLE ticket_filter_counts (
  tenant_id text NOT NULL,
  field     text NOT NULL,
  value     text NOT NULL,
  n         bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, field, value)
);

-- The rows a statement changed, signed: +1 for each new row, -1 for each old one (an UPDATE has
-- both; a change that moves no count nets to zero and writes nothing). One function for the three
-- triggers: the transition tables a trigger has are named in the statement it runs.
CREATE FUNCTION ticket_filter_counts_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT tenant_id, status, priority, type, requester_id, assignee_id, tags, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT tenant_id, status, priority, type, requester_id, assignee_id, tags, -1 AS sign FROM old_rows'
    ELSE 'SELECT tenant_id, status, priority, type, requester_id, assignee_id, tags, 1 AS sign FROM new_rows
          UNION ALL SELECT tenant_id, status, priority, type, requester_id, assignee_id, tags, -1 FROM old_rows'
  END;
BEGIN
  EXECUTE format($q$
    WITH changed AS (%s), keyed AS (
      SELECT c.tenant_id, k.field, k.value, sum(c.sign) AS d
        FROM changed AS c,
             LATERAL (SELECT 'status', c.status UNION ALL SELECT 'priority', c.priority
                      UNION ALL SELECT 'type', c.type
                      UNION ALL SELECT 'requester_id', c.requester_id WHERE c.requester_id IS NOT NULL
                      UNION ALL SELECT 'assignee_id', c.assignee_id WHERE c.assignee_id IS NOT NULL
                      UNION ALL SELECT 'tag', t FROM unnest(c.tags) AS t) AS k (field, value)
       GROUP BY 1, 2, 3
      HAVING sum(c.sign) <> 0
    )
    INSERT INTO ticket_filter_counts AS fc (tenant_id, field, value, n)
      SELECT tenant_id, field, value, d FROM keyed ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, field, value) DO UPDATE SET n = fc.n + excluded.n$q$, changed);
  RETURN NULL;
END $$;

CREATE TRIGGER tickets_filter_count_insert AFTER INSERT ON tickets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_filter_counts_on_change();
CREATE TRIGGER tickets_filter_count_update AFTER UPDATE ON tickets
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION ticket_filter_counts_on_change();
CREATE TRIGGER tickets_filter_count_delete AFTER DELETE ON tickets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ticket_filter_counts_on_change();

-- The tickets written before the triggers existed.
INSERT INTO ticket_filter_counts (tenant_id, field, value, n)
  SELECT t.tenant_id, k.field, k.value, count(*)
    FROM tickets AS t,
         LATERAL (SELECT 'status', t.status UNION ALL SELECT 'priority', t.priority
                  UNION ALL SELECT 'type', t.type
                  UNION ALL SELECT 'requester_id', t.requester_id WHERE t.requester_id IS NOT NULL
                  UNION ALL SELECT 'assignee_id', t.assignee_id WHERE t.assignee_id IS NOT NULL
                  UNION ALL SELECT 'tag', g FROM unnest(t.tags) AS g) AS k (field, value)
   GROUP BY 1, 2, 3;
