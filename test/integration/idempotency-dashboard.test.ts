// Idempotency-Key on the dashboard surface, under the API-key surface's rules: each keyed
// operation a session may call, sent twice with one key, does its work once (one resource, one
// event) and the second answer is the first, byte for byte, with Idempotent-Replayed; the same key
// with another body is 422 and does nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Detail } from '../../shared/http/errors';
import { type Harness, startHarness, type TestResponse } from '../support/harness';
import { dashboardCases } from '../support/keyed-cases/dashboard';
import type { CaseContext, KeyedRequest } from '../support/keyed-cases/types';

describe('Idempotency-Key on dashboard POST and PATCH', () => {
  let h: Harness;
  const run = Math.random().toString(36).slice(2, 8);

  beforeAll(async () => {
    h = await startHarness({ SYNC_HTTP_ALLOW_HOSTS: '127.0.0.1' });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  const send = (req: KeyedRequest, key: string, body = req.body): Promise<TestResponse> =>
    h.request(req.method, req.path, {
      body,
      apiKey: req.apiKey,
      bearer: req.bearer,
      headers: { 'Idempotency-Key': key },
    });

  it("every case here is a session's request", async () => {
    const t = await h.tenant({ name: 'Dashboard keyed' });
    for (const c of dashboardCases) {
      const req = await c.prepare({ h, t, key: (scopes) => t.key(scopes) });
      expect([c.operationId, req.apiKey, typeof req.bearer]).toEqual([c.operationId, undefined, 'string']);
    }
  }, 120_000);

  it.each(dashboardCases.map((c) => [c.operationId, c] as const))(
    '%s: the same key twice does the work once and replays the first answer',
    async (_id, keyedCase) => {
      const t = await h.tenant({ name: `Dashboard ${keyedCase.operationId}` });
      const ctx: CaseContext = { h, t, key: (scopes) => t.key(scopes) };
      const req = await keyedCase.prepare(ctx);
      const key = `${run}-${keyedCase.operationId}`;
      const first = await send(req, key);
      expect(first.status, first.text).toBeGreaterThanOrEqual(200);
      expect(first.status, first.text).toBeLessThan(300);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const before = await keyedCase.effects?.(ctx, first);
      const replay = await send(req, key);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([first.status, 'true']);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
      if (keyedCase.effects) expect(await keyedCase.effects(ctx, first)).toBe(before);
      // the same key with another request: 422, and nothing more is done
      const other = await send(req, key, { ...((req.body as object | undefined) ?? {}), other: true });
      expect([other.status, other.body?.detail]).toEqual([422, Detail.idempotencyKeyReused]);
      if (keyedCase.effects) expect(await keyedCase.effects(ctx, first)).toBe(before);
    },
    60_000,
  );
});
