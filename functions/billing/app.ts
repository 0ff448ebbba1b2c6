import { Hono } from 'hono';
import { roleGuard, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db, TenantPlan } from '../../shared/db/schema';
import type { PaymentMethod } from '../../shared/db/tables/platform';
import { emitEvent } from '../../shared/events/emit';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { RATE_KINDS, RATE_LIMITS } from '../../shared/ratelimit/limits';
import { invalidatePlan } from '../../shared/ratelimit/plan-cache';
import {
  METRICS,
  PERIOD_RE,
  type Period,
  PLAN_CATALOG,
  parsePeriod,
  periodOf,
  previousPeriod,
} from '../../shared/usage/plans';
import { usageTotals } from '../../shared/usage/query';
import { ChangePlanBody, InvoiceParam, InvoicesQuery, PaymentSettingsBody } from './schemas';

/**
 * Billing: the plan (changing it changes quotas and rate limits at once), invoices computed from
 * metered usage, and payment settings (card kept as brand + last 4 only). billing:read for reads,
 * billing:write for writes and for reading payment settings (shared/auth/scopes.ts).
 */
export const app = new Hono<AppEnv>();
app.use('/api/v1/billing/*', roleGuard('tenant_admin', { keysByScope: true }));

async function tenantRow(db: Db, tenantId: string) {
  const t = await db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
  if (!t) throw notFound('Tenant');
  return t;
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

app.get('/api/v1/billing/plan', async (c) => {
  const t = await tenantRow(c.get('services').db, tenantOf(c));
  return c.json(planView(t.plan));
});

/** The catalog, so a client can show what an upgrade buys. */
app.get('/api/v1/billing/plans', (c) =>
  c.json({ plans: (['free', 'starter', 'pro', 'enterprise'] as const).map(planView) }),
);

for (const method of ['put', 'patch'] as const) {
  app[method]('/api/v1/billing/plan', validate('json', ChangePlanBody), async (c) => {
    const tenantId = tenantOf(c);
    const { plan } = c.req.valid('json');
    const { db } = c.get('services');
    const changed = await db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('tenants')
        .select('plan')
        .where('id', '=', tenantId)
        .forUpdate()
        .executeTakeFirst();
      if (!before) throw notFound('Tenant');
      if (before.plan === plan) return false;
      await trx
        .updateTable('tenants')
        .set({ plan, updated_at: new Date() })
        .where('id', '=', tenantId)
        .execute();
      await emitEvent(trx, tenantId, 'config.updated', {
        config: { section: 'billing.plan', changes: { plan: { from: before.plan, to: plan } } },
      });
      return true;
    });
    invalidatePlan(tenantId);
    if (changed) c.get('services').events.kick();
    return c.json(planView(plan));
  });
}

// --- invoices: one per calendar month since the tenant was created; the current one is `upcoming`
async function invoiceFor(db: Db, tenantId: string, plan: TenantPlan, p: Period, now: Date) {
  const info = PLAN_CATALOG[plan];
  const totals = await usageTotals(db, { tenantId, from: p.start, to: p.end });
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

function periodsSince(created: Date, now: Date): Period[] {
  const out: Period[] = [];
  const first = periodOf(created);
  for (let p = periodOf(now); p.start >= first.start; p = previousPeriod(p)) out.push(p);
  return out; // newest first
}

app.get('/api/v1/billing/invoices', validate('query', InvoicesQuery), async (c) => {
  const page = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const t = await tenantRow(db, tenantId);
  const now = new Date();
  const periods = periodsSince(new Date(t.created_at), now);
  const slice = periods.slice(page.offset, page.offset + page.limit);
  const invoices = await Promise.all(slice.map((p) => invoiceFor(db, tenantId, t.plan, p, now)));
  return c.json(pageEnvelope('invoices', invoices, periods.length, page));
});

app.get('/api/v1/billing/invoices/:invoice_id', validate('param', InvoiceParam), async (c) => {
  const { invoice_id } = c.req.valid('param');
  const m = /^inv_(\d{4})(\d{2})$/.exec(invoice_id);
  const name = m ? `${m[1]}-${m[2]}` : '';
  if (!PERIOD_RE.test(name)) throw notFound('Invoice');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const t = await tenantRow(db, tenantId);
  const p = parsePeriod(name);
  const now = new Date();
  if (p.end <= periodOf(new Date(t.created_at)).start || p.start > now) throw notFound('Invoice');
  return c.json(await invoiceFor(db, tenantId, t.plan, p, now));
});

// --- payment settings
function brandOf(n: string): string {
  if (/^4/.test(n)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  if (/^6(011|5)/.test(n)) return 'discover';
  return 'unknown';
}

async function paymentSettings(db: Db, tenantId: string) {
  const row = await db
    .selectFrom('billing_accounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return {
    billing_email: row?.billing_email ?? null,
    payment_method: row?.payment_method ?? null,
    billing_address: row?.billing_address ?? null,
    tax_id: row?.tax_id ?? null,
    updated_at: row ? new Date(row.updated_at).toISOString() : null,
  };
}

app.get('/api/v1/billing/payment-settings', async (c) =>
  c.json(await paymentSettings(c.get('services').db, tenantOf(c))),
);

for (const [method, mode] of [
  ['put', 'replace'],
  ['patch', 'merge'],
] as const) {
  app[method]('/api/v1/billing/payment-settings', validate('json', PaymentSettingsBody), async (c) => {
    const body = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { db } = c.get('services');
    const current = mode === 'merge' ? await paymentSettings(db, tenantId) : null;
    const pick = <K extends keyof typeof body>(k: K, fallback: unknown) =>
      body[k] === undefined ? (mode === 'merge' ? fallback : null) : body[k];
    let payment: PaymentMethod | null;
    if (body.payment_method === undefined)
      payment = mode === 'merge' ? (current?.payment_method ?? null) : null;
    else if (body.payment_method === null) payment = null;
    else {
      const pm = body.payment_method;
      payment = {
        type: 'card',
        brand: brandOf(pm.card_number),
        last4: pm.card_number.slice(-4),
        exp_month: pm.exp_month,
        exp_year: pm.exp_year,
      };
    }
    const values = {
      billing_email: pick('billing_email', current?.billing_email) as string | null,
      payment_method: JSON.stringify(payment),
      billing_address: JSON.stringify(pick('billing_address', current?.billing_address) ?? null),
      tax_id: pick('tax_id', current?.tax_id) as string | null,
      updated_at: new Date(),
    };
    await db
      .insertInto('billing_accounts')
      .values({ tenant_id: tenantId, ...values })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(values))
      .execute();
    return c.json(await paymentSettings(db, tenantId));
  });
}
