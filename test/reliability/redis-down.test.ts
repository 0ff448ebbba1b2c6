/**
 * Fault (iv): Redis unreachable. Rate limiting fails open onto the in-process limiter (documented
 * in docs/rate-limits.md), Idempotency-Key requests fail closed with 503; never a 500. The same on
 * both ways the server reaches Redis: the Upstash REST protocol (its stand-in's port closed) and a
 * plain Redis at REDIS_URL (a TCP proxy's port closed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultyRedis, REDIS_PROTOCOLS, startFaultyRedis } from '../support/upstash-rest-adapter';
import { json, provisionTenant, type ServerProcess, startServer } from './server-process';

describe.each(REDIS_PROTOCOLS)('Redis unreachable, over %s', (protocol) => {
  let server: ServerProcess;
  let redis: FaultyRedis;
  let key: string;
  // each server its own PGlite directory: one left running by the other protocol's run (a timed-out
  // start) would hold the default one
  const dataDir = mkdtempSync(join(tmpdir(), `redis-down-${protocol}-`));
  beforeAll(async () => {
    // down from the start: every Redis call fails at once (connection refused)
    redis = await startFaultyRedis(protocol, { label: 'down', fault: 'refuse' });
    server = await startServer({ ...redis.env, DATA_DIR: dataDir });
    ({ key } = await provisionTenant(server.base, 'free', ['tickets:read', 'tickets:write']));
  }, 180_000);
  afterAll(async () => {
    await server?.kill();
    await redis?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

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
