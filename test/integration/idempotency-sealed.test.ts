// No secret at rest in the clear, the Idempotency-Key store included: after keyed creations of every
// keyed operation whose answer carries a secret (a webhook's `whsec_` secret, a voice-widget
// token), neither Postgres (every table's text) nor Redis (every `idem:*` value of the tenant)
// holds one readable; and a retry with the same key replays the first answer byte for byte from
// the sealed copy. On both stores. (The API key made beside them, unkeyed, must not be found either.)
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisKeyPrefix } from '../../shared/redis/client';
import { databaseText } from '../support/database-text';
import { type Harness, postgresUnavailable, startHarness, type TestTenant } from '../support/harness';
import {
  PLAIN_REDIS_URL,
  redisForTests,
  startUpstashRestAdapter,
  type UpstashRestAdapter,
} from '../support/upstash-rest-adapter';

const redisUp = await redisForTests();

interface Secretive {
  what: string;
  method: 'POST';
  path: () => string;
  body?: unknown;
  /** the secrets in its answer */
  secrets: (body: any) => string[];
}

const SECRETIVE: Secretive[] = [
  {
    what: 'webhook create',
    method: 'POST',
    path: () => '/api/v1/webhooks',
    body: { url: 'https://localhost:9/sealed', events: ['ticket.created'] },
    secrets: (b) => [b.secret],
  },
  {
    what: 'voice-widget token',
    method: 'POST',
    path: () => '/api/v1/voice-widget/token',
    secrets: (b) => [b.token],
  },
];

for (const store of ['database', 'redis', 'plain redis'] as const) {
  const inRedis = store !== 'database';
  describe.skipIf(postgresUnavailable() || (inRedis && !redisUp))(
    `stored Idempotency-Key answers are sealed (${store} store)`,
    () => {
      let h: Harness;
      let t: TestTenant;
      let key: string;
      let adapter: UpstashRestAdapter | undefined;
      const run = Math.random().toString(36).slice(2, 8);

      beforeAll(async () => {
        const env: Record<string, string> = { WEBHOOK_SSRF_ALLOW: 'localhost' };
        if (store === 'plain redis') env.REDIS_URL = PLAIN_REDIS_URL;
        if (store === 'redis') {
          adapter = await startUpstashRestAdapter();
          env.UPSTASH_REDIS_REST_URL = adapter.url;
          env.UPSTASH_REDIS_REST_TOKEN = adapter.token;
        }
        h = await startHarness(env);
        expect(h.runtime.services.idempotencyStore?.apartFromDatabase ?? false).toBe(inRedis);
        t = await h.tenant({ plan: 'enterprise' });
        key = await t.key(['webhooks:read', 'webhooks:write', 'config:write', 'calls:write']);
      }, 300_000);
      afterAll(async () => {
        await h?.close();
        await adapter?.close();
      });

      /** Every `idem:*` value of this tenant in Redis, as text. */
      async function redisText(): Promise<string> {
        const client = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
        await client.connect();
        try {
          const keys = await client.keys(`${redisKeyPrefix(h.config)}idem:${t.id}:*`);
          const values = keys.length ? await client.mget(...keys) : [];
          return values.join('\n');
        } finally {
          client.disconnect();
        }
      }

      it('every secret-bearing keyed answer replays byte for byte, and no store holds its secret', async () => {
        const secrets: string[] = [key];
        for (const op of SECRETIVE) {
          const send = () =>
            h.request(op.method, op.path(), {
              body: op.body,
              apiKey: key,
              headers: { 'Idempotency-Key': `${run}-${op.what.replace(/ /g, '-')}` },
            });
          const first = await send();
          expect([op.what, first.status]).toEqual([op.what, first.status < 300 ? first.status : 'a 2xx']);
          const found = op.secrets(first.body);
          for (const s of found) expect(typeof s, op.what).toBe('string');
          secrets.push(...found);
          const replay = await send();
          expect([op.what, replay.status, replay.headers.get('idempotent-replayed')]).toEqual([
            op.what,
            first.status,
            'true',
          ]);
          expect(replay.text).toBe(first.text);
        }
        expect(secrets.some((s) => s.startsWith('whsec_'))).toBe(true);

        const stored = `${await databaseText(h.db)}\n${inRedis ? await redisText() : ''}`;
        // something was stored for every key (sealed), so the scan below looks where the answers are
        if (inRedis) expect((await redisText()).match(/sealed-answer:/g)?.length).toBe(SECRETIVE.length);
        else
          expect(
            (
              await h.db
                .selectFrom('idempotency_keys')
                .select('response_body')
                .where('tenant_id', '=', t.id)
                .execute()
            ).length,
          ).toBe(SECRETIVE.length);
        for (const s of secrets)
          expect(stored.includes(s), `a secret in the clear: ${s.slice(0, 12)}…`).toBe(false);
        expect(stored).not.toMatch(/whsec_[A-Za-z0-9+/=_-]{8,}/);
        expect(stored).not.toMatch(/itsm_sk_(live|test)_[A-Za-z0-9]{8,}/);
        expect(stored).not.toMatch(/itsm_(rt|inv|pwr)_[A-Za-z0-9]{8,}/);
      }, 120_000);
    },
  );
}
