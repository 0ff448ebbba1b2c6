import type { Selectable } from 'kysely';
import type { Db, Executor, TenantPlan } from '../../shared/db/schema';
import type { BillingAccountsTable, PaymentMethod } from '../../shared/db/tables/platform';
import { iso } from '../../shared/events/emit';
import { RATE_KINDS, RATE_LIMITS } from '../../shared/ratelimit/limits';
import { METRICS, type Period, PLAN_CATALOG, periodOf, type Totals } from '../../shared/usage/plans';
import { usageTotals } from '../../shared/usage/query';

/* ---------------------------------------------------------------- plan */

/** The tenant's plan, locked for the rest of the caller's transaction. */
export async function lockTenantPlan(trx: Executor, tenantId: string) {
  return trx.selectFrom('tenants').select('plan').where('id', '=', tenantId).forUpdate().executeTakeFirst();
}

export async function setTenantPlan(trx: Executor, tenantId: string, plan: TenantPlan) {
  await trx.updateTable('tenants').set({ plan, updated_at: new Date() }).where('id', '=', tenantId).execute();
}

export function planView(plan: TenantPlan) {
  const info = PLAN_CATALOG[plan];
  const p = periodOf(new Date());
  return {
    plan,
    name: info.name,
    price_cents: info.price_cents,
    currency: 'usd' as const,
    interval: 'month' as const,
    quotas: info.quotas,
    overage_cents: info.overage_cents,
    rate_limits: Object.fromEntries(
      RATE_KINDS.map((k) => [
        k,
        { per_minute: RATE_LIMITS[plan][k].perMinute, per_10_seconds: RATE_LIMITS[plan][k].per10s },
      ]),
    ),
    current_period: { period: p.period, start: p.start.toISOString(), end: p.end.toISOString() },
  };
}

/* ---------------------------------------------------------------- invoices */

/** The tenant's metered usage in one billing period, per metric. */
export async function periodUsage(db: Db, tenantId: string, p: Period) {
  return usageTotals(db, { tenantId, from: p.start, to: p.end });
}

/** The invoice of one period: the plan price, then each metric's usage above the plan quota. */
export function invoiceView(plan: TenantPlan, p: Period, totals: Totals, now: Date) {
  const info = PLAN_CATALOG[plan];
  const lines = [
    {
      description: `${info.name} plan`,
      metric: null,
      quantity: 1,
      included: 0,
      billable: 1,
      unit_amount_cents: info.price_cents,
      amount_cents: info.price_cents,
    },
    ...METRICS.map((m) => {
      const billable = Math.max(0, totals[m] - info.quotas[m]);
      return {
        description: `${m.replace(/_/g, ' ')} above the plan quota`,
        metric: m,
        quantity: totals[m],
        included: info.quotas[m],
        billable,
        unit_amount_cents: info.overage_cents[m],
        amount_cents: Math.round(billable * info.overage_cents[m]),
      };
    }),
  ];
  const subtotal = lines.reduce((s, l) => s + l.amount_cents, 0);
  return {
    id: `inv_${p.period.replace('-', '')}`,
    period: p.period,
    period_start: p.start.toISOString(),
    period_end: p.end.toISOString(),
    status: p.end > now ? ('upcoming' as const) : ('issued' as const),
    plan,
    currency: 'usd' as const,
    line_items: lines,
    subtotal_cents: subtotal,
    total_cents: subtotal,
  };
}

/* ---------------------------------------------------------------- payment settings */

export async function findBillingAccount(db: Executor, tenantId: string) {
  return db.selectFrom('billing_accounts').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

/** Payment settings as shown (the card as brand + last 4 only); every field null before the first write. */
export function paymentSettingsView(row: Selectable<BillingAccountsTable> | undefined) {
  return {
    billing_email: row?.billing_email ?? null,
    payment_method: row?.payment_method ?? null,
    billing_address: row?.billing_address ?? null,
    tax_id: row?.tax_id ?? null,
    updated_at: row ? iso(row.updated_at) : null,
  };
}

export interface BillingAccountValues {
  billing_email: string | null;
  payment_method: PaymentMethod | null;
  billing_address: object | null;
  tax_id: string | null;
}

/** Writes the tenant's billing account (one row per tenant: inserted on the first write); the row as stored. */
export async function saveBillingAccount(db: Executor, tenantId: string, account: BillingAccountValues) {
  const values = {
    billing_email: account.billing_email,
    payment_method: JSON.stringify(account.payment_method),
    billing_address: JSON.stringify(account.billing_address ?? null),
    tax_id: account.tax_id,
    updated_at: new Date(),
  };
  return db
    .insertInto('billing_accounts')
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}
