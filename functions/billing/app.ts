import { Hono } from 'hono';
import type { z } from 'zod';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db, TenantPlan } from '../../shared/db/schema';
import type { PaymentMethod } from '../../shared/db/tables/platform';
import { findTenant } from '../../shared/db/tenants';
import { emitEvent } from '../../shared/events/emit';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { type HandlerOf, register } from '../../shared/http/route';
import { invalidatePlan } from '../../shared/ratelimit/plan-cache';
import {
  isServablePeriod,
  type Period,
  parsePeriod,
  periodOf,
  previousPeriod,
} from '../../shared/usage/plans';
import {
  type BillingAccountValues,
  findBillingAccount,
  invoiceView,
  lockTenantPlan,
  paymentSettingsView,
  periodUsage,
  planView,
  saveBillingAccount,
  setTenantPlan,
} from './data';
import * as routes from './routes';
import type { PaymentSettingsBody } from './schemas';

/**
 * Billing: the plan (changing it changes quotas and rate limits at once), invoices computed from
 * metered usage, and payment settings (card kept as brand + last 4 only). billing:read for reads,
 * billing:write for writes and for reading payment settings (functions/manifest.ts); every route
 * needs the tenant_admin role of a dashboard session (declared in routes.ts). A write commits its
 * answer with its work under the request's Idempotency-Key (answerWithWork), so a retry after a
 * crash is replayed those bytes instead of writing again.
 */
export const app = new Hono<AppEnv>();

async function requireTenant(db: Db, tenantId: string) {
  const t = await findTenant(db, tenantId);
  if (!t) throw notFound('Tenant');
  return t;
}

/* ---------------------------------------------------------------- plan */

register(app, routes.getPlan, async (c) => {
  const t = await requireTenant(c.get('services').db, tenantOf(c));
  return c.json(planView(t.plan));
});

/** The catalog, so a client can show what an upgrade buys. */
register(app, routes.listPlans, (c) =>
  c.json({ plans: (['free', 'starter', 'pro', 'enterprise'] as const).map(planView) }),
);

/** PUT and PATCH alike: config.updated (section billing.plan) only when the plan changes. */
const changePlan: HandlerOf<typeof routes.replacePlan> = async (c) => {
  const tenantId = tenantOf(c);
  const { plan } = c.req.valid('json');
  const { result: changed, answer } = await answerWithWork(
    c,
    async (trx) => {
      const before = await lockTenantPlan(trx, tenantId);
      if (!before) throw notFound('Tenant');
      const changed = before.plan !== plan;
      if (changed) {
        await setTenantPlan(trx, tenantId, plan);
        await emitEvent(trx, tenantId, 'config.updated', {
          config: { section: 'billing.plan', changes: { plan: { from: before.plan, to: plan } } },
        });
      }
      return changed;
    },
    () => storedJson(200, planView(plan)),
    { transaction: true },
  );
  invalidatePlan(tenantId);
  if (changed) c.get('services').events.kick();
  return sendAnswer(c, answer);
};
register(app, routes.replacePlan, changePlan);
register(app, routes.updatePlan, changePlan);

/* ------------- invoices: one per calendar month since the tenant was created; the current one is `upcoming` */

async function invoiceFor(db: Db, tenantId: string, plan: TenantPlan, p: Period, now: Date) {
  return invoiceView(plan, p, await periodUsage(db, tenantId, p), now);
}

function periodsSince(created: Date, now: Date): Period[] {
  const out: Period[] = [];
  const first = periodOf(created);
  for (let p = periodOf(now); p.start >= first.start; p = previousPeriod(p)) out.push(p);
  return out; // newest first
}

register(app, routes.listInvoices, async (c) => {
  const page = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const t = await requireTenant(db, tenantId);
  const now = new Date();
  const periods = periodsSince(new Date(t.created_at), now);
  const slice = periods.slice(page.offset, page.offset + page.limit);
  const invoices = await Promise.all(slice.map((p) => invoiceFor(db, tenantId, t.plan, p, now)));
  return c.json(pageEnvelope('invoices', invoices, periods.length, page));
});

register(app, routes.getInvoice, async (c) => {
  const { invoice_id } = c.req.valid('param');
  const m = /^inv_(\d{4})(\d{2})$/.exec(invoice_id);
  const name = m ? `${m[1]}-${m[2]}` : '';
  if (!isServablePeriod(name)) throw notFound('Invoice');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const t = await requireTenant(db, tenantId);
  const p = parsePeriod(name);
  const now = new Date();
  if (p.end <= periodOf(new Date(t.created_at)).start || p.start > now) throw notFound('Invoice');
  return c.json(await invoiceFor(db, tenantId, t.plan, p, now));
});

/* ---------------------------------------------------------------- payment settings */

register(app, routes.getPaymentSettings, async (c) =>
  c.json(paymentSettingsView(await findBillingAccount(c.get('services').db, tenantOf(c)))),
);

type PaymentSettingsInput = z.output<typeof PaymentSettingsBody>;
type Mode = 'replace' | 'merge';

/** PUT replaces every field, PATCH (merge) keeps the fields the body leaves out; null clears one. */
const writePaymentSettings =
  (mode: Mode): HandlerOf<typeof routes.replacePaymentSettings> =>
  async (c) => {
    const body = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { answer } = await answerWithWork(
      c,
      async (ex) => {
        const current = mode === 'merge' ? paymentSettingsView(await findBillingAccount(ex, tenantId)) : null;
        return saveBillingAccount(ex, tenantId, accountOf(body, mode, current));
      },
      (saved) => storedJson(200, paymentSettingsView(saved)),
    );
    return sendAnswer(c, answer);
  };
register(app, routes.replacePaymentSettings, writePaymentSettings('replace'));
register(app, routes.updatePaymentSettings, writePaymentSettings('merge'));

/** The account to store: the body's fields, the rest from `current` (merge) or null (replace). */
function accountOf(
  body: PaymentSettingsInput,
  mode: Mode,
  current: ReturnType<typeof paymentSettingsView> | null,
): BillingAccountValues {
  const pick = <K extends keyof typeof body>(k: K, fallback: unknown) =>
    body[k] === undefined ? (mode === 'merge' ? fallback : null) : body[k];
  let payment: PaymentMethod | null;
  if (body.payment_method === undefined)
    payment = mode === 'merge' ? (current?.payment_method ?? null) : null;
  else if (body.payment_method === null) payment = null;
  else payment = cardOf(body.payment_method);
  return {
    billing_email: pick('billing_email', current?.billing_email) as string | null,
    payment_method: payment,
    billing_address: (pick('billing_address', current?.billing_address) ?? null) as object | null,
    tax_id: pick('tax_id', current?.tax_id) as string | null,
  };
}

/** The card as kept: brand and last 4 digits (the number and CVC are never stored). */
function cardOf(pm: { card_number: string; exp_month: number; exp_year: number }): PaymentMethod {
  return {
    type: 'card',
    brand: brandOf(pm.card_number),
    last4: pm.card_number.slice(-4),
    exp_month: pm.exp_month,
    exp_year: pm.exp_year,
  };
}

function brandOf(n: string): string {
  if (/^4/.test(n)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  if (/^6(011|5)/.test(n)) return 'discover';
  return 'unknown';
}
