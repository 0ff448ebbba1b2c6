-- Kept counts for the pairs of filters people combine (docs/benchmarks.md, "Lists at scale"): the
-- `total` of a page filtered by two of them is a few rows read at any size, where an exact count
-- over both filters' indexes grew with the rows matched (status=open&priority=urgent: 10 ms at
-- 100,000 tickets, 75 ms at 1,000,000, 350 ms at 5,000,000).
--
-- A pair is kept in the same tables and by the same triggers as the single filters: `field` is the
-- two query keys in alphabetical order joined by `+`, `value` their values in that order joined by
-- `|` (a tag, free text, always comes last, and the other value of a pair never holds `|`: an
-- enumeration value or an id). Three filters or more still count exactly.

-- A ticket's keys, singles and pairs, in one place for the trigger and the backfill. The row's
-- values are read inside a FROM (VALUES, unnest), as the other key functions do (schema/0019).
CREATE FUNCTION ticket_count_keys(p_status text, p_priority text, p_type text, p_requester_id text,
                                  p_assignee_id text, p_tags text[])
  RETURNS TABLE (field text, value text) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT k.field, k.value
    FROM (VALUES ('status', p_status), ('priority', p_priority), ('type', p_type),
                 ('requester_id', p_requester_id), ('assignee_id', p_assignee_id),
                 ('priority+status', p_priority || '|' || p_status),
                 ('status+type', p_status || '|' || p_type),
                 ('priority+type', p_priority || '|' || p_type),
                 ('assignee_id+status', p_assignee_id || '|' || p_status),
                 ('assignee_id+priority', p_assignee_id || '|' || p_priority),
                 ('requester_id+status', p_requester_id || '|' || p_status))
         AS k (field, value)
   WHERE k.value IS NOT NULL
  UNION ALL
  SELECT f.field, f.prefix || t
    FROM unnest(p_tags) AS t,
         (VALUES ('tag', ''), ('status+tag', p_status || '|'), ('priority+tag', p_priority || '|')) AS f (field, prefix)
$$;

CREATE OR REPLACE FUNCTION ticket_filter_counts_on_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
             LATERAL ticket_count_keys(c.status, c.priority, c.type, c.requester_id, c.assignee_id, c.tags) AS k
       GROUP BY 1, 2, 3
      HAVING sum(c.sign) <> 0
    )
    INSERT INTO ticket_filter_counts AS fc (tenant_id, field, value, n)
      SELECT tenant_id, field, value, d FROM keyed ORDER BY 1, 2, 3
    ON CONFLICT (tenant_id, field, value) DO UPDATE SET n = fc.n + excluded.n$q$, changed);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION calls_count_keys(r calls) RETURNS TABLE (tenant_id text, list text, field text, value text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT r.tenant_id, 'calls', k.field, k.value
    FROM (SELECT CASE WHEN r.completed_at IS NULL THEN 'in_progress' ELSE 'completed' END) AS s (status),
         LATERAL (VALUES ('*', '*'), ('outcome', r.outcome), ('direction', r.direction), ('channel', r.channel),
                 ('status', s.status), ('caller_phone', r.caller_phone),
                 ('channel+status', r.channel || '|' || s.status),
                 ('channel+direction', r.channel || '|' || r.direction),
                 ('direction+status', r.direction || '|' || s.status),
                 ('channel+outcome', r.channel || '|' || r.outcome))
         AS k (field, value)
   WHERE k.value IS NOT NULL
$$;

CREATE OR REPLACE FUNCTION conversations_count_keys(r conversations)
  RETURNS TABLE (tenant_id text, list text, field text, value text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT r.tenant_id, 'conversations', k.field, k.value
    FROM (VALUES ('*', '*'), ('status', r.status), ('channel', r.channel), ('contact_id', r.contact_id),
                 ('assignee_user_id', r.assignee_user_id), ('assignee_team_id', r.assignee_team_id),
                 ('channel+status', r.channel || '|' || r.status),
                 ('assignee_user_id+status', r.assignee_user_id || '|' || r.status),
                 ('assignee_team_id+status', r.assignee_team_id || '|' || r.status),
                 ('contact_id+status', r.contact_id || '|' || r.status))
         AS k (field, value)
   WHERE k.value IS NOT NULL
$$;

-- a tag listed twice on a row is one match of `tag=x`: counted once
CREATE OR REPLACE FUNCTION contacts_count_keys(r contacts) RETURNS TABLE (tenant_id text, list text, field text, value text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT r.tenant_id, CASE WHEN r.deleted_at IS NULL THEN 'contacts' ELSE 'contacts.deleted' END, k.field, k.value
    FROM (VALUES ('*', '*'), ('company_id', r.company_id)) AS k (field, value)
   WHERE k.value IS NOT NULL
  UNION ALL
  SELECT DISTINCT r.tenant_id, CASE WHEN r.deleted_at IS NULL THEN 'contacts' ELSE 'contacts.deleted' END, f.field,
         f.prefix || t
    FROM unnest(r.tags) AS t,
         (VALUES ('tag', ''), ('company_id+tag', r.company_id || '|')) AS f (field, prefix)
   WHERE f.prefix IS NOT NULL
$$;

-- The pairs of the rows written before (their single counts are already kept).
INSERT INTO ticket_filter_counts (tenant_id, field, value, n)
  SELECT t.tenant_id, k.field, k.value, count(*)
    FROM tickets AS t,
         LATERAL ticket_count_keys(t.status, t.priority, t.type, t.requester_id, t.assignee_id, t.tags) AS k
   WHERE k.field LIKE '%+%'
   GROUP BY 1, 2, 3;
INSERT INTO list_filter_counts (tenant_id, list, field, value, n)
  SELECT k.tenant_id, k.list, k.field, k.value, count(*) FROM calls AS r, LATERAL calls_count_keys(r) AS k
   WHERE k.field LIKE '%+%' GROUP BY 1, 2, 3, 4;
INSERT INTO list_filter_counts (tenant_id, list, field, value, n)
  SELECT k.tenant_id, k.list, k.field, k.value, count(*)
    FROM conversations AS r, LATERAL conversations_count_keys(r) AS k WHERE k.field LIKE '%+%' GROUP BY 1, 2, 3, 4;
INSERT INTO list_filter_counts (tenant_id, list, field, value, n)
  SELECT k.tenant_id, k.list, k.field, k.value, count(*) FROM contacts AS r, LATERAL contacts_count_keys(r) AS k
   WHERE k.field LIKE '%+%' GROUP BY 1, 2, 3, 4;
