import type { Db } from '../db/schema';
import { emitEvent } from '../events/emit';
import { type Period, PLAN_CATALOG, periodOf, previousPeriod } from './plans';
import { usageTotals } from './query';

/**
 * Emits exactly one `usage.reported` per tenant per period: the usage_reports primary key
 * (tenant_id, period) is claimed in the same transaction as the event, so a second run (or a
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
    const done = await db.transaction().execute(async (trx) => {
      const claimed = await trx
        .insertInto('usage_reports')
        .values({ tenant_id: t.id, period: p.period, event_id: 'pending', totals: JSON.stringify(totals) })
        .onConflict((oc) => oc.columns(['tenant_id', 'period']).doNothing())
        .returning('tenant_id')
        .executeTakeFirst();
      if (!claimed) return false;
      const eventId = await emitEvent(trx, t.id, 'usage.reported', { usage });
      await trx
        .updateTable('usage_reports')
        .set({ event_id: eventId })
        .where('tenant_id', '=', t.id)
        .where('period', '=', p.period)
        .execute();
      return true;
    });
    if (done) reported.push(t.id);
    else skipped += 1;
  }
  return { reported, skipped };
}

/**
 * The reporting job: reports the last finished period (the previous month). Idempotent, so a
 * scheduler may call it as often as it likes (the embedded runtime hourly, the edge from a cron
 * trigger); each tenant gets exactly one `usage.reported` per period.
 */
export function reportLastPeriod(db: Db, now = new Date()) {
  return reportUsage(db, previousPeriod(periodOf(now)));
}
