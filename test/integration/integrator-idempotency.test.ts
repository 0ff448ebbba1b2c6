import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Detail } from '../../shared/http/errors';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import {
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

function suite(
  name: string,
  makeEnv: () => Promise<{ env: Record<string, string>; cleanup?: () => Promise<void> }>,
) {
  describe.skipIf(postgresUnavailable() || (name === 'redis' && !redisUp))(
    `Idempotency-Key (${name} store)`,
    () => {
      let h: Harness;
      let t: TestTenant;
      let key: string;
      let cleanup: (() => Promise<void>) | undefined;
      beforeAll(async () => {
        const made = await makeEnv();
        cleanup = made.cleanup;
        h = await startHarness(made.env);
        t = await h.tenant();
        key = await t.key(['tickets:read', 'tickets:write']);
      });
      afterAll(async () => {
        await h?.close();
        await cleanup?.();
      });

      const run = Math.random().toString(36).slice(2, 8);
      const post = (idem: string, body: unknown, apiKey = key) =>
        h.request('POST', '/api/v1/tickets', {
          apiKey,
          body,
          headers: { 'Idempotency-Key': `${run}-${idem}` },
        });
      const ticketCount = async (subject: string) =>
        Number(
          (
            await h.db
              .selectFrom('tickets')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('tenant_id', '=', t.id)
              .where('subject', '=', subject)
              .executeTakeFirstOrThrow()
          ).n,
        );

      it('replays the first response byte for byte, and the action happens once', async () => {
        // beyond ASCII: the stored answer comes back from every store as the same UTF-8
        const first = await post('a', { subject: 'idem A', description: 'Ünïcødé — ✓ 😀 中文' });
        expect(first.status).toBe(201);
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        expect(first.body.description).toBe('Ünïcødé — ✓ 😀 中文');
        const again = await post('a', { subject: 'idem A', description: 'Ünïcødé — ✓ 😀 中文' });
        expect(again.status).toBe(201);
        expect(again.text).toBe(first.text);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.headers.get('content-type')).toContain('application/json');
        expect(await ticketCount('idem A')).toBe(1);
        const events = await h.db
          .selectFrom('events')
          .select('id')
          .where('tenant_id', '=', t.id)
          .where('event_type', '=', 'ticket.created')
          .where('payload', '@>', JSON.stringify({ ticket: { id: first.body.id } }) as never)
          .execute();
        expect(events).toHaveLength(1);
      });

      it('the same key with a different request is 422', async () => {
        expect((await post('b', { subject: 'idem B' })).status).toBe(201);
        const other = await post('b', { subject: 'idem B, changed' });
        expect(other.status).toBe(422);
        expect(typeof other.body.detail).toBe('string');
        expect(other.body.detail).toContain('Idempotency-Key');
        expect(await ticketCount('idem B, changed')).toBe(0);
      });

      it('concurrent duplicates perform the action once', async () => {
        const results = await Promise.all(Array.from({ length: 8 }, () => post('c', { subject: 'idem C' })));
        const statuses = results.map((r) => r.status).sort();
        // a duplicate is 409 while the first is in progress; on a loaded machine the tenant's share
        // of concurrent requests may refuse one first (429, before its key is read: nothing done)
        const shareRefusal = (r: (typeof results)[number]) =>
          r.status === 429 && r.body.detail === Detail.tenantShareExceeded;
        expect(results.filter((r) => r.status !== 201 && r.status !== 409 && !shareRefusal(r))).toEqual([]);
        expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
        expect(await ticketCount('idem C')).toBe(1);
        const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
        expect(ids.size).toBe(1);
      });

      it('keys are scoped per credential', async () => {
        const otherKey = await t.key(['tickets:write']);
        expect((await post('d', { subject: 'idem D' })).status).toBe(201);
        const second = await post('d', { subject: 'idem D' }, otherKey);
        expect(second.status).toBe(201);
        expect(second.headers.get('idempotent-replayed')).toBeNull();
        expect(await ticketCount('idem D')).toBe(2);
      });

      it('applies to PATCH; validation failures are replayed too; a bad key is 422', async () => {
        const created = await post('e', { subject: 'idem E' });
        const patch = (idem: string, body: unknown) =>
          h.request('PATCH', `/api/v1/tickets/${created.body.id}`, {
            apiKey: key,
            body,
            headers: { 'Idempotency-Key': `${run}-${idem}` },
          });
        const p1 = await patch('e-patch', { priority: 'urgent' });
        expect(p1.status).toBe(200);
        const p2 = await patch('e-patch', { priority: 'urgent' });
        expect(p2.headers.get('idempotent-replayed')).toBe('true');
        expect(p2.text).toBe(p1.text);
        const bad = await post('f', { subject: '' });
        expect(bad.status).toBe(422);
        expect((await post('f', { subject: '' })).headers.get('idempotent-replayed')).toBe('true');
        const tooLong = await h.request('POST', '/api/v1/tickets', {
          apiKey: key,
          body: { subject: 'x' },
          headers: { 'Idempotency-Key': 'k'.repeat(256) },
        });
        expect(tooLong.status).toBe(422);
        expect(tooLong.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
      });

      it('GET and requests without the header are untouched', async () => {
        const a = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'idem G' } });
        const b = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'idem G' } });
        expect([a.status, b.status]).toEqual([201, 201]);
        expect(await ticketCount('idem G')).toBe(2);
      });

      if (name === 'database') {
        it('expires after 24 h', async () => {
          expect((await post('h', { subject: 'idem H' })).status).toBe(201);
          await h.db
            .updateTable('idempotency_keys')
            .set({ expires_at: new Date(Date.now() - 1000) })
            .where('idempotency_key', '=', `${run}-h`)
            .execute();
          const again = await post('h', { subject: 'idem H' });
          expect(again.status).toBe(201);
          expect(again.headers.get('idempotent-replayed')).toBeNull();
          expect(await ticketCount('idem H')).toBe(2);
        });
      }
    },
  );
}

suite('database', async () => ({ env: {} }));

let adapter: UpstashRestAdapter | undefined;
suite('redis', async () => {
  adapter = await startUpstashRestAdapter();
  return {
    env: { UPSTASH_REDIS_REST_URL: adapter.url, UPSTASH_REDIS_REST_TOKEN: adapter.token },
    cleanup: () => adapter!.close(),
  };
});

describe.skipIf(postgresUnavailable() || !redisUp)('Idempotency-Key when Redis is down', () => {
  it('answers 503 (fail closed) for keyed requests and serves the rest', async () => {
    const down = await startUpstashRestAdapter();
    const h = await startHarness({ UPSTASH_REDIS_REST_URL: down.url, UPSTASH_REDIS_REST_TOKEN: down.token });
    try {
      const t = await h.tenant();
      const key = await t.key(['tickets:write']);
      down.down = true;
      const keyed = await h.request('POST', '/api/v1/tickets', {
        apiKey: key,
        body: { subject: 'x' },
        headers: { 'Idempotency-Key': 'k1' },
      });
      expect(keyed.status).toBe(503);
      expect(typeof keyed.body.detail).toBe('string');
      const plain = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'y' } });
      expect(plain.status).toBe(201);
    } finally {
      await h.close();
      await down.close();
    }
  });
});
