import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddedRuntime } from '../../scripts/embedded';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('usage.reported is scheduled by the runtime itself', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('a runtime start reports the last finished period, exactly once per tenant', async () => {
    const old = new Date(Date.now() - 70 * 86_400_000);
    await h.db
      .insertInto('tenants')
      .values({
        id: 'ten_usage_old',
        name: 'Old',
        plan: 'starter',
        environment: 'production',
        created_at: old,
      } as never)
      .execute();
    for (let i = 0; i < 2; i++) {
      const runtime = await createEmbeddedRuntime({ config: h.config, handle: h.runtime.handle });
      await runtime.drain();
      await runtime.close();
    }
    const events = await h.db
      .selectFrom('events')
      .select(['event_type', 'payload'])
      .where('tenant_id', '=', 'ten_usage_old')
      .where('event_type', '=', 'usage.reported')
      .execute();
    expect(events).toHaveLength(1);
    const usage = (events[0]!.payload as { usage: { plan: string; period: string; totals: object } }).usage;
    expect(usage.plan).toBe('starter');
    const now = new Date();
    const prev = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    expect(usage.period).toBe(`${prev.getUTCFullYear()}-${String(prev.getUTCMonth() + 1).padStart(2, '0')}`);
  });
});
