import { sql } from 'kysely';
import type { Db } from '../db/schema';
import { iso } from '../events/emit';
import { recorderFor } from './meter';
import { emptyTotals, METRICS, type Metric, type Totals } from './plans';

/**
 * Every reader first settles this process's buffered usage rows (shared/usage/meter.ts).
 * Usage is read from three places, unified at query time (no metering job, so figures are never
 * stale and nothing is copied twice):
 *  - api_requests: usage_records (written by the metering middleware)
 *  - call_minutes: the events outbox, `call.completed` -> ceil(duration_seconds / 60) per call
 *  - conversations: the events outbox, one per `conversation.created`
 *  - webhook_deliveries: webhook_deliveries, one per delivery row (any status)
 */
export interface UsageFilter {
  tenantId: string;
  from: Date;
  to: Date;
  kind?: Metric;
}

const DURATION = sql`(CASE WHEN (e.payload->'call'->>'duration_seconds') ~ '^[0-9]+(\\.[0-9]+)?$'
  THEN CEIL((e.payload->'call'->>'duration_seconds')::numeric / 60)::int ELSE 0 END)`;

/** All usage events of the filter as one relation: id, kind, quantity, method, endpoint, status, api_key_id, actor, reference, occurred_at. */
function usageRelation(f: UsageFilter) {
  const parts = [];
  const want = (k: Metric) => !f.kind || f.kind === k;
  if (want('api_requests'))
    parts.push(sql`SELECT u.id, u.kind, u.quantity, u.method, u.endpoint, u.status, u.api_key_id, u.actor,
        NULL::text AS reference, u.created_at AS occurred_at
      FROM usage_records u
      WHERE u.tenant_id = ${f.tenantId} AND u.created_at >= ${f.from} AND u.created_at < ${f.to}`);
  if (want('call_minutes'))
    parts.push(sql`SELECT e.id AS id, 'call_minutes'::text AS kind, ${DURATION} AS quantity, NULL::text AS method, NULL::text AS endpoint, NULL::int AS status, NULL::text AS api_key_id, NULL::text AS actor,
        e.payload->'call'->>'id' AS reference, e.created_at AS occurred_at
      FROM events e
      WHERE e.tenant_id = ${f.tenantId} AND e.event_type = 'call.completed'
        AND e.created_at >= ${f.from} AND e.created_at < ${f.to}`);
  if (want('conversations'))
    parts.push(sql`SELECT e.id AS id, 'conversations'::text AS kind, 1 AS quantity, NULL::text AS method, NULL::text AS endpoint, NULL::int AS status, NULL::text AS api_key_id, NULL::text AS actor,
        e.payload->'conversation'->>'id' AS reference, e.created_at AS occurred_at
      FROM events e
      WHERE e.tenant_id = ${f.tenantId} AND e.event_type = 'conversation.created'
        AND e.created_at >= ${f.from} AND e.created_at < ${f.to}`);
  if (want('webhook_deliveries'))
    parts.push(sql`SELECT d.id AS id, 'webhook_deliveries'::text AS kind, 1 AS quantity, NULL::text AS method, NULL::text AS endpoint, d.response_status AS status, NULL::text AS api_key_id, NULL::text AS actor,
        d.event_type AS reference, d.created_at AS occurred_at
      FROM webhook_deliveries d
      WHERE d.tenant_id = ${f.tenantId} AND d.created_at >= ${f.from} AND d.created_at < ${f.to}`);
  return sql.join(parts, sql` UNION ALL `);
}

export async function usageTotals(db: Db, f: UsageFilter): Promise<Totals> {
  await recorderFor(db).settle();
  const { rows } = await sql<{ kind: Metric; quantity: string | number }>`
    SELECT x.kind, COALESCE(SUM(x.quantity), 0) AS quantity FROM (${usageRelation(f)}) x GROUP BY x.kind`.execute(
    db,
  );
  const totals = emptyTotals();
  for (const r of rows)
    if ((METRICS as readonly string[]).includes(r.kind)) totals[r.kind] = Number(r.quantity);
  return totals;
}

export interface UsageEventRow {
  id: string;
  kind: Metric;
  quantity: number;
  method: string | null;
  endpoint: string | null;
  status: number | null;
  api_key_id: string | null;
  actor: string | null;
  reference: string | null;
  occurred_at: Date;
}

export async function usageEvents(db: Db, f: UsageFilter, page: { limit: number; offset: number }) {
  await recorderFor(db).settle();
  const rel = usageRelation(f);
  const [list, count] = await Promise.all([
    sql<UsageEventRow>`SELECT * FROM (${rel}) x ORDER BY x.occurred_at DESC, x.id DESC LIMIT ${page.limit} OFFSET ${page.offset}`.execute(
      db,
    ),
    sql<{ n: string | number }>`SELECT COUNT(*) AS n FROM (${rel}) x`.execute(db),
  ]);
  return {
    rows: list.rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      quantity: Number(r.quantity),
      method: r.method,
      endpoint: r.endpoint,
      status: r.status === null ? null : Number(r.status),
      api_key_id: r.api_key_id,
      actor: r.actor,
      reference: r.reference,
      occurred_at: iso(r.occurred_at),
    })),
    total: Number(count.rows[0]?.n ?? 0),
  };
}

export const GROUP_BY = ['day', 'endpoint', 'api_key', 'kind', 'status'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Group keys; endpoint, api_key and status only exist on api_requests (other kinds group under null). */
const GROUP_EXPR: Record<GroupBy, ReturnType<typeof sql>> = {
  day: sql`to_char(x.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  endpoint: sql`CASE WHEN x.endpoint IS NULL THEN NULL ELSE x.method || ' ' || x.endpoint END`,
  api_key: sql`CASE WHEN x.kind = 'api_requests' THEN COALESCE(x.api_key_id, x.actor) ELSE NULL END`,
  kind: sql`x.kind`,
  status: sql`CASE WHEN x.kind = 'api_requests' THEN x.status::text ELSE NULL END`,
};

export async function usageGroups(
  db: Db,
  f: UsageFilter,
  groupBy: GroupBy,
  page: { limit: number; offset: number },
) {
  await recorderFor(db).settle();
  const rel = usageRelation(f);
  // an api_requests row may stand for several identical requests (folded under load): its quantity
  const grouped = sql`SELECT ${GROUP_EXPR[groupBy]} AS key, x.kind AS kind,
      SUM(CASE WHEN x.kind = 'api_requests' THEN x.quantity ELSE 1 END) AS count, COALESCE(SUM(x.quantity), 0) AS quantity
    FROM (${rel}) x GROUP BY 1, 2`;
  const [list, count] = await Promise.all([
    sql<{ key: string | null; kind: Metric; count: string | number; quantity: string | number }>`
      SELECT * FROM (${grouped}) g ORDER BY g.key ASC NULLS LAST, g.kind ASC LIMIT ${page.limit} OFFSET ${page.offset}`.execute(
      db,
    ),
    sql<{ n: string | number }>`SELECT COUNT(*) AS n FROM (${grouped}) g`.execute(db),
  ]);
  return {
    rows: list.rows.map((r) => ({
      key: r.key,
      kind: r.kind,
      count: Number(r.count),
      quantity: Number(r.quantity),
    })),
    total: Number(count.rows[0]?.n ?? 0),
  };
}
