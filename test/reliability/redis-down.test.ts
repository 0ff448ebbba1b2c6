/**
 * Fault (iv): Redis unreachable. Rate limiting fails open onto the in-process limiter (documented
 * in docs/rate-limits.md), Idempotency-Key requests fail closed with 503; never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, provisionTenant, type ServerProcess, startServer } from './server-process';

describe('Redis unreachable', () => {
  let server: ServerProcess;
  let key: string;
  beforeAll(async () => {
    // nothing listens on port 9 of this machine: every Upstash call fails at once
    server = await startServer(await freePort(), {
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:9',
      UPSTASH_REDIS_REST_TOKEN: 'x',
    });
    ({ key } = await provisionTenant(server.base, 'free', ['tickets:read', 'tickets:write']));
  }, 120_000);
  afterAll(() => server?.kill());

  it('serves requests (limits fall back to memory) and never answers 500', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await json(server.base, 'GET', '/api/v1/tickets', { headers: { 'x-api-key': key } });
      statuses.push(res.status);
      if (res.status === 200) expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(statuses).toContain(200);
    const created = await json(server.base, 'POST', '/api/v1/tickets', {
      headers: { 'x-api-key': key },
      body: { subject: 'no redis' },
    });
    expect(created.status).toBe(201);
    const keyed = await json(server.base, 'POST', '/api/v1/tickets', {
      headers: { 'x-api-key': key, 'idempotency-key': 'r1' },
      body: { subject: 'keyed' },
    });
    expect(keyed.status).toBe(503);
    expect(typeof keyed.body.detail).toBe('string');
  }, 60_000);
});
