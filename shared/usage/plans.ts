import type { TenantPlan } from '../db/schema';

/** What is metered. Each usage record has one of these kinds; quotas and invoices use the same names. */
export const METRICS = ['api_requests', 'call_minutes', 'conversations', 'webhook_deliveries'] as const;
export type Metric = (typeof METRICS)[number];
export type Totals = Record<Metric, number>;

export interface PlanInfo {
  name: string;
  /** monthly base price in cents (USD) */
  price_cents: number;
  /** included per billing period (calendar month, UTC) */
  quotas: Totals;
  /** price per unit above the quota, in cents (fractions allowed; the invoice rounds the line) */
  overage_cents: Totals;
}

/** The plan catalog: data, read by usage summary, billing plan and invoices. */
export const PLAN_CATALOG: Record<TenantPlan, PlanInfo> = {
  free: {
    name: 'Free',
    price_cents: 0,
    quotas: { api_requests: 10_000, call_minutes: 100, conversations: 500, webhook_deliveries: 10_000 },
    overage_cents: { api_requests: 0.02, call_minutes: 6, conversations: 3, webhook_deliveries: 0.01 },
  },
  starter: {
    name: 'Starter',
    price_cents: 4_900,
    quotas: { api_requests: 100_000, call_minutes: 1_000, conversations: 5_000, webhook_deliveries: 100_000 },
    overage_cents: { api_requests: 0.01, call_minutes: 5, conversations: 2, webhook_deliveries: 0.005 },
  },
  pro: {
    name: 'Pro',
    price_cents: 19_900,
    quotas: {
      api_requests: 1_000_000,
      call_minutes: 10_000,
      conversations: 50_000,
      webhook_deliveries: 1_000_000,
    },
    overage_cents: { api_requests: 0.005, call_minutes: 4, conversations: 1, webhook_deliveries: 0.002 },
  },
  enterprise: {
    name: 'Enterprise',
    price_cents: 99_900,
    quotas: {
      api_requests: 10_000_000,
      call_minutes: 100_000,
      conversations: 500_000,
      webhook_deliveries: 10_000_000,
    },
    overage_cents: { api_requests: 0.002, call_minutes: 3, conversations: 0.5, webhook_deliveries: 0.001 },
  },
};

export const emptyTotals = (): Totals => ({
  api_requests: 0,
  call_minutes: 0,
  conversations: 0,
  webhook_deliveries: 0,
});

/** Billing/usage periods are calendar months in UTC, named `YYYY-MM`. */
export interface Period {
  period: string;
  start: Date;
  end: Date;
}

export const PERIOD_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

/**
 * A period this API can serve: `YYYY-MM` from 0001-01 to 9999-11. December 9999 would end in year
 * 10000, past what a stored timestamp holds (shared/http/instants.ts). Names are fixed-width, so
 * they compare as strings.
 */
export const isServablePeriod = (name: string): boolean =>
  PERIOD_RE.test(name) && name >= '0001-01' && name <= '9999-11';

/**
 * Midnight UTC on the first of a month. Not `Date.UTC(year, …)`: it reads years 0-99 as 1900-1999,
 * which made `0099-01` the period 1999-01.
 */
function monthStart(year: number, monthIndex: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, monthIndex, 1);
  return d;
}

export function periodOf(date: Date): Period {
  return periodFromStart(monthStart(date.getUTCFullYear(), date.getUTCMonth()));
}

function periodFromStart(start: Date): Period {
  const end = monthStart(start.getUTCFullYear(), start.getUTCMonth() + 1);
  const year = String(start.getUTCFullYear()).padStart(4, '0');
  const period = `${year}-${String(start.getUTCMonth() + 1).padStart(2, '0')}`;
  return { period, start, end };
}

export function parsePeriod(name: string): Period {
  const m = PERIOD_RE.exec(name);
  if (!m) throw new Error(`bad period ${name}`);
  return periodFromStart(monthStart(Number(m[1]), Number(m[2]) - 1));
}

export const previousPeriod = (p: Period): Period =>
  periodFromStart(monthStart(p.start.getUTCFullYear(), p.start.getUTCMonth() - 1));
