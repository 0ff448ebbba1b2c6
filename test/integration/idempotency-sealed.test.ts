// No secret at rest in the clear, the Idempotency-Key store included: after keyed requests of every
// keyed operation whose answer carries a secret (a webhook's `whsec_` secret at creation and at
// rotation, an API key at creation and at rotation, a voice-widget token, a new tenant's admin
// invite), by an API key and by a dashboard session, neither Postgres (every table's text) nor Redis
// (every `idem:*` value) holds one readable; and a retry with the same key replays the first answer
// byte for byte from the sealed copy. On both stores. (The API key made beside them, unkeyed, must
// not be found either.)
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
  path: () => string | Promise<string>;
  body?: unknown;
  /** sent by the tenant's admin session (else by the API key), or by a super_admin */
  as?: 'session' | 'super_admin';
  /** the secrets in its answer */
  secrets: (body: any) => string[];
}

/** set by beforeAll: what the cases work on */
const made = { keyId: '', webhookId: '' };

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
  {
    what: 'api key create',
    method: 'POST',
    path: () => '/api/v1/api-keys',
    body: { name: 'sealed', scopes: ['tickets:read'] },
    as: 'session',
    secrets: (b) => [b.api_key],
  },
  {
    what: 'api key rotate',
    method: 'POST',
    path: () => `/api/v1/api-keys/${made.keyId}/rotate`,
    as: 'session',
    secrets: (b) => [b.api_key],
  },
  {
    what: 'webhook rotate-secret',
    method: 'POST',
    path: () => `/api/v2/webhooks/${made.webhookId}/rotate-secret`,
    as: 'session',
    secrets: (b) => [b.secret],
  },
  {
    what: 'tenant create with its admin invite',
    method: 'POST',
    path: () => '/api/v1/tenants',
    body: {
      name: 'Sealed tenant',
      plan: 'pro',
      environment: 'sandbox',
      admin_email: 'sealed-admin@example.com',
    },
    as: 'super_admin',
    // the invite link is in the answer in development only (the test runtime's)
    secrets: (b) => (b.invite?.token ? [b.invite.token] : []),
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
      /** secrets of what the cases work on, made unkeyed: no store may hold them either */
      const secretsMadeBeside: string[] = [];

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
        const other = await h.request('POST', '/api/v1/api-keys', {
          bearer: t.adminToken,
          body: { name: 'to rotate', scopes: ['tickets:read'] },
        });
        made.keyId = other.body.id;
        secretsMadeBeside.push(other.body.api_key);
        const hook = await h.request('POST', '/api/v1/webhooks', {
          apiKey: key,
          body: { url: 'https://localhost:9/sealed-rotate', events: ['ticket.created'] },
        });
        made.webhookId = hook.body.id;
        secretsMadeBeside.push(hook.body.secret);
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
          const prefix = redisKeyPrefix(h.config);
          const keys = [
            ...(await client.keys(`${prefix}idem:${t.id}:*`)),
            ...(await client.keys(`${prefix}idem:platform:*${run}*`)),
          ];
          const values = keys.length ? await client.mget(...keys) : [];
          return values.join('\n');
        } finally {
          client.disconnect();
        }
      }

      it('every secret-bearing keyed answer replays byte for byte, and no store holds its secret', async () => {
        const secrets: string[] = [key, ...secretsMadeBeside];
        const superToken = await h.superToken();
        for (const op of SECRETIVE) {
          const path = await op.path();
          const credential =
            op.as === 'session'
              ? { bearer: t.adminToken }
              : op.as === 'super_admin'
                ? { bearer: superToken }
                : { apiKey: key };
          const send = () =>
            h.request(op.method, path, {
              body: op.body,
              ...credential,
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
        expect(secrets.filter((s) => s.startsWith('itsm_sk_')).length).toBeGreaterThanOrEqual(4);

        const stored = `${await databaseText(h.db)}\n${inRedis ? await redisText() : ''}`;
        // something was stored for every key (sealed), so the scan below looks where the answers are
        if (inRedis) expect((await redisText()).match(/sealed-answer:/g)?.length).toBe(SECRETIVE.length);
        else
          expect(
            (
              await h.db
                .selectFrom('idempotency_keys')
                .select('response_body')
                .where((eb) => eb.or([eb('tenant_id', '=', t.id), eb('idempotency_key', 'like', `${run}-%`)]))
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
