import { sql } from 'kysely';
import type { Db } from '../db/schema';
import { outboxRow } from '../events/emit';
import type { EventDataMap } from '../events/payloads';
import { type Period, PLAN_CATALOG, periodOf, previousPeriod } from './plans';
import { usageTotals } from './query';

/**
 * Emits exactly one `usage.reported` per tenant per period: the usage_reports primary key
 * (tenant_id, period) is claimed in the same statement as the event, so a second run (or a
 * concurrent one) for the same period emits nothing. Returns the tenants newly reported.
 */
export async function reportUsage(db: Db, p: Period): Promise<{ reported: string[]; skipped: number }> {
  const tenants = await db
    .selectFrom('tenants')
    .select(['id', 'plan'])
    .where('created_at', '<', p.end)
    .orderBy('id')
    .execute();
  const reported: string[] = [];
  let skipped = 0;
  for (const t of tenants) {
    const totals = await usageTotals(db, { tenantId: t.id, from: p.start, to: p.end });
    const plan = PLAN_CATALOG[t.plan];
    const usage = {
      tenant_id: t.id,
      period: p.period,
      period_start: p.start.toISOString(),
      period_end: p.end.toISOString(),
      plan: t.plan,
      totals,
      quotas: plan.quotas,
    };
    const done = await claimAndEmit(db, t.id, p.period, totals, { usage });
    if (done) reported.push(t.id);
    else skipped += 1;
  }
  return { reported, skipped };
}

/**
 * Claims (tenant, period) and, only when this call claimed it, writes its `usage.reported` outbox
 * event, in one statement (data-modifying CTEs): the event's id is known before, so the claim
 * records it directly, and no interactive transaction is opened (a WebSocket session on the edge).
 * Whether this call claimed it.
 */
async function claimAndEmit(
  db: Db,
  tenantId: string,
  period: string,
  totals: Record<string, unknown>,
  data: EventDataMap['usage.reported'],
): Promise<boolean> {
  const event = outboxRow(tenantId, 'usage.reported', data);
  const claimed = await db
    .with('claimed', (w) =>
      w
        .insertInto('usage_reports')
        .values({ tenant_id: tenantId, period, event_id: event.id, totals: JSON.stringify(totals) })
        .onConflict((oc) => oc.columns(['tenant_id', 'period']).doNothing())
        .returning('tenant_id'),
    )
    .with('event', (w) =>
      w
        .insertInto('events')
        .columns(['id', 'tenant_id', 'event_type', 'payload'])
        .expression(
          w
            .selectFrom('claimed')
            .select([
              sql<string>`${event.id}::text`.as('id'),
              sql<string>`${event.tenant_id}::text`.as('tenant_id'),
              sql<string>`${event.event_type}::text`.as('event_type'),
              sql<string>`${event.payload}::jsonb`.as('payload'),
            ]),
        ),
    )
    .selectFrom('claimed')
    .select('tenant_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/**
 * The reporting job: reports the last finished period (the previous month). Idempotent, so a
 * scheduler may call it as often as it likes (the embedded runtime hourly, the edge from a cron
 * trigger); each tenant gets exactly one `usage.reported` per period.
 */
export function reportLastPeriod(db: Db, now = new Date()) {
  return reportUsage(db, previousPeriod(periodOf(now)));
}
