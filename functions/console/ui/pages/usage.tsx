/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { METRICS, type Metric } from '../../../../shared/usage/plans';
import { api, type components, loadMe, must } from '../api';
import { ErrorText, Loading, PageHead, useLoad } from '../components';
import { currentIdentity } from '../session';

type Summary = components['schemas']['UsageSummary'];

const LABELS: Record<Metric, string> = {
  api_requests: 'API requests',
  call_minutes: 'Call minutes',
  conversations: 'Conversations',
  webhook_deliveries: 'Webhook deliveries',
};

const thisMonth = () => new Date().toISOString().slice(0, 7);
const number = new Intl.NumberFormat('en');
/** How far back the picker goes when the tenant's own start is not readable (agents). */
const MONTHS_BACK = 24;
const monthsAgo = (n: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - n, 1)).toISOString().slice(0, 7);
};
const monthName = (period: string) =>
  new Date(`${period}-01T00:00:00Z`).toLocaleString('en', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** The months with usage to show: from the tenant's creation (GET /api/v1/auth/me) to this month. */
function useMonthRange() {
  const who = currentIdentity();
  const me = useLoad(async () => (who ? loadMe(who) : null), [who?.tenantId, who?.userId]);
  return { first: me.data?.tenant.created_at.slice(0, 7) ?? monthsAgo(MONTHS_BACK), last: thisMonth() };
}

export function UsagePage() {
  const [period, setPeriod] = useState(thisMonth());
  const range = useMonthRange();
  // YYYY-MM strings order as months do
  const outOfRange = period < range.first || period > range.last;
  const usage = useLoad(
    async () =>
      outOfRange ? undefined : must(api.GET('/api/v1/usage/summary', { params: { query: { period } } })),
    [period, outOfRange],
  );
  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Usage"
        intro="What this tenant used in a billing period (calendar month, UTC) against its plan."
      />
      <div class="filters">
        <label for="usage-period">Period</label>
        <input
          id="usage-period"
          type="month"
          value={period}
          min={range.first}
          max={range.last}
          aria-describedby="usage-range"
          onChange={(e: Event) => setPeriod((e.target as HTMLInputElement).value || thisMonth())}
        />
        {usage.data && !outOfRange ? <span class="chip">plan {usage.data.plan}</span> : null}
      </div>
      <p
        id="usage-range"
        class={outOfRange ? 'error' : 'muted small'}
        role={outOfRange ? 'alert' : undefined}
      >
        {outOfRange
          ? `No usage for ${monthName(period)}: pick a month from ${monthName(range.first)} to ${monthName(range.last)}.`
          : `Months from ${monthName(range.first)} to ${monthName(range.last)}.`}
      </p>
      <ErrorText message={usage.error} />
      {usage.loading && !usage.data ? <Loading what="usage" /> : null}
      {usage.data && !outOfRange ? (
        <ul class="meters">
          {METRICS.map((m) => {
            const s = usage.data as Summary;
            const pct = Math.min(100, s.percent_used[m]);
            return (
              <li key={m} class="meter-card" data-metric={m}>
                <h2>{LABELS[m]}</h2>
                <p class="big">
                  {number.format(s.totals[m])}
                  <span class="muted"> / {number.format(s.quotas[m])}</span>
                </p>
                <meter
                  min={0}
                  max={100}
                  low={75}
                  high={90}
                  optimum={0}
                  value={pct}
                  aria-label={`${LABELS[m]} used`}
                >
                  {pct}%
                </meter>
                <p class="muted small">
                  {s.percent_used[m]}% used · {number.format(s.remaining[m])} left
                </p>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
