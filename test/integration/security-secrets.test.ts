/**
 * Secrets at rest and in logs: API keys, webhook secrets and end-user passwords never appear in
 * clear in any table of the database or in anything the process logs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type HttpsReceiver,
  startHttpsReceiver,
  trustTestCertificate,
} from '../../scripts/lib/https-receiver';
import { timingSafeEqual } from '../../shared/crypto';
import { databaseText as databaseTextOf } from '../support/database-text';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('secrets never in clear', () => {
  let h: Harness;
  let receiver: HttpsReceiver;
  const logged: string[] = [];

  beforeAll(async () => {
    trustTestCertificate();
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(' '));
      });
    }
    receiver = await startHttpsReceiver();
    // every level, so the check below sees every line the runtime could write
    h = await startHarness({ WEBHOOK_SSRF_ALLOW: 'localhost,127.0.0.1', LOG_LEVEL: 'trace' });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h?.close();
    await receiver?.close();
  });

  const databaseText = () => databaseTextOf(h.db);

  it('keys, webhook secrets and passwords are absent from every table and every log line', async () => {
    const t = await h.tenant();
    const secrets: string[] = [];
    const created = await h.request('POST', '/api/v1/api-keys', {
      bearer: t.adminToken,
      body: { name: 'k', scopes: ['tickets:write', 'webhooks:write'] },
    });
    secrets.push(created.body.api_key);
    const rotated = await h.request('POST', `/api/v1/api-keys/${created.body.id}/rotate`, {
      bearer: t.adminToken,
    });
    secrets.push(rotated.body.api_key);
    const apiKey = rotated.body.api_key;
    // the key is used, refused when wrong, and shows up in request handling
    await h.request('POST', '/api/v1/tickets', { apiKey, body: { subject: 'hello' } });
    await h.request('GET', '/api/v1/tickets', { apiKey: secrets[0] });

    const hook = await h.request('POST', '/api/v1/webhooks', {
      apiKey,
      body: { url: receiver.url('/s'), events: ['*'] },
    });
    expect(hook.status).toBe(201);
    secrets.push(hook.body.secret);
    await h.request('POST', '/api/v1/tickets', { apiKey, body: { subject: 'delivered' } });
    await h.runtime.webhooks.settle();
    expect(receiver.received('/s').length).toBeGreaterThan(0);

    const password = 'correct horse battery staple 42';
    const reg = await h.request('POST', '/api/v1/app/auth/register', {
      body: { tenant_id: t.id, email: 'eu@example.com', password, name: 'E' },
    });
    expect(reg.status).toBe(201);
    await h.request('POST', '/api/v1/app/auth/login', {
      body: { tenant_id: t.id, email: 'eu@example.com', password: 'wrong password 1234' },
    });
    secrets.push(password);
    await h.runtime.drain();

    const db = await databaseText();
    // the runtime's logger wrote its lines (one access line per request at least) to the harness
    logged.push(...h.logged);
    expect(h.accessLines().length).toBeGreaterThanOrEqual(8);
    for (const secret of secrets) {
      expect(db.includes(secret), 'a secret is stored in clear').toBe(false);
      expect(
        logged.some((line) => line.includes(secret)),
        'a secret was logged',
      ).toBe(false);
    }
    // and what is stored is not trivially derived from it either
    expect(db.includes(secrets[2]!.slice(-20))).toBe(false);
  });

  it('comparisons of secrets are constant-time and exact', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'abcd')).toBe(false);
    expect(timingSafeEqual('', '')).toBe(true);
    expect(timingSafeEqual('é', 'e')).toBe(false);
  });
});
