// Rate limits on the edge: the Workers' limiter talks to Redis through Upstash's REST API (here the
// local adapter in front of this machine's Redis): limited responses carry X-RateLimit-* and the
// window counters land in Redis.
import { it as base, describe, expect, inject } from 'vitest';
import { call, edgeTenant } from './support';

const upstashUrl = inject('upstashUrl');
const it = base.skipIf(!upstashUrl);

async function redis(command: string[]): Promise<unknown> {
  const res = await fetch(upstashUrl, {
    method: 'POST',
    headers: { Authorization: `Bearer ${inject('upstashToken')}` },
    body: JSON.stringify(command),
  });
  return ((await res.json()) as { result: unknown }).result;
}

describe('rate limits through Upstash', () => {
  it('counts a tenant request in Redis and reports the window', async () => {
    const tenant = await edgeTenant('free');
    const key = await tenant.key(['tickets:read']);
    const res = await call('GET', '/api/v1/api-keys', { bearer: tenant.adminToken });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    const keys = (await redis(['KEYS', `*${tenant.id}*`])) as string[];
    expect(keys.length, 'rate-limit counters in Redis').toBeGreaterThan(0);
    void key;
  });
});
