/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { METRICS, type Metric } from '../../../../shared/usage/plans';
import { api, must } from '../api';
import { ErrorText, Loading, PageHead, useLoad } from '../components';

interface Summary {
  plan: string;
  period: string;
  period_start: string;
  period_end: string;
  totals: Record<Metric, number>;
  quotas: Record<Metric, number>;
  remaining: Record<Metric, number>;
  percent_used: Record<Metric, number>;
}

const LABELS: Record<Metric, string> = {
  api_requests: 'API requests',
  call_minutes: 'Call minutes',
  conversations: 'Conversations',
  webhook_deliveries: 'Webhook deliveries',
};

const thisMonth = () => new Date().toISOString().slice(0, 7);
const number = new Intl.NumberFormat('en');

export function UsagePage() {
  const [period, setPeriod] = useState(thisMonth());
  const usage = useLoad(
    async () => (await must(api.GET('/api/v1/usage/summary', { params: { query: { period } } }))) as Summary,
    [period],
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
          max={thisMonth()}
          onChange={(e: Event) => setPeriod((e.target as HTMLInputElement).value || thisMonth())}
        />
        {usage.data ? <span class="chip">plan {usage.data.plan}</span> : null}
      </div>
      <ErrorText message={usage.error} />
      {usage.loading && !usage.data ? <Loading what="usage" /> : null}
      {usage.data ? (
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
