import type { Redis } from '@upstash/redis';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../context/app-env';
import type {
  BeginResult,
  IdempotencyScope,
  IdempotencyStore,
  StoredResponse,
} from '../context/idempotency-store';
import { sha256Hex } from '../crypto';
import type { Db } from '../db/schema';
import { errorField } from '../log/logger';
import { ApiError, conflict, Detail, validationError } from './errors';
import type { MiddlewareDoc } from './openapi';

export type { BeginResult, IdempotencyScope, IdempotencyStore, StoredResponse };

/**
 * `Idempotency-Key` on every POST and PATCH of the public API (Stripe semantics): the first
 * response for (tenant, credential, key) is kept for 24 h and replayed byte for byte with
 * `Idempotent-Replayed: true`; the same key with a different request is 422; a duplicate that
 * arrives while the first is still running is 409 and never runs the action twice.
 * 5xx responses are not kept, so a retry after a server failure runs again.
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEPT_HEADERS = ['content-type', 'location'];

/** Embedded runtime: a row per key; the primary key serialises concurrent duplicates. */
export class DbIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Db) {}

  private where(scope: IdempotencyScope) {
    return {
      tenant_id: scope.tenantId,
      credential: scope.credential,
      idempotency_key: scope.key,
    };
  }

  async begin(scope: IdempotencyScope, fingerprint: string): Promise<BeginResult> {
    const k = this.where(scope);
    await this.db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', k.tenant_id)
      .where('credential', '=', k.credential)
      .where('idempotency_key', '=', k.idempotency_key)
      .where('expires_at', '<', new Date())
      .execute();
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({
        ...k,
        fingerprint,
        state: 'in_progress',
        expires_at: new Date(Date.now() + IDEMPOTENCY_TTL_SECONDS * 1000),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'credential', 'idempotency_key']).doNothing())
      .returning('state')
      .executeTakeFirst();
    if (inserted) return { kind: 'new' };
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('tenant_id', '=', k.tenant_id)
      .where('credential', '=', k.credential)
      .where('idempotency_key', '=', k.idempotency_key)
      .executeTakeFirst();
    if (!row) return this.begin(scope, fingerprint); // released between our insert and select
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.state !== 'done' || row.response_status === null) return { kind: 'in_progress' };
    return {
      kind: 'replay',
      response: {
        status: row.response_status,
        headers: row.response_headers ?? {},
        body: row.response_body ?? '',
      },
    };
  }

  async complete(scope: IdempotencyScope, _fingerprint: string, response: StoredResponse): Promise<void> {
    const k = this.where(scope);
    await this.db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        response_status: response.status,
        response_headers: JSON.stringify(response.headers),
        response_body: response.body,
      })
      .where('tenant_id', '=', k.tenant_id)
      .where('credential', '=', k.credential)
      .where('idempotency_key', '=', k.idempotency_key)
      .execute();
  }

  async release(scope: IdempotencyScope): Promise<void> {
    const k = this.where(scope);
    await this.db
      .deleteFrom('idempotency_keys')
      .where('tenant_id', '=', k.tenant_id)
      .where('credential', '=', k.credential)
      .where('idempotency_key', '=', k.idempotency_key)
      .execute();
  }
}

interface RedisRecord {
  fingerprint: string;
  state: 'in_progress' | 'done';
  response?: StoredResponse;
}

/** Production: one Redis key per scope; SET NX decides who runs, the TTL expires it after 24 h. */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  private key(scope: IdempotencyScope) {
    return `idem:${scope.tenantId}:${scope.credential}:${scope.key}`;
  }

  async begin(scope: IdempotencyScope, fingerprint: string): Promise<BeginResult> {
    const record: RedisRecord = { fingerprint, state: 'in_progress' };
    const set = await this.redis.set(this.key(scope), JSON.stringify(record), {
      nx: true,
      ex: IDEMPOTENCY_TTL_SECONDS,
    });
    if (set === 'OK') return { kind: 'new' };
    const raw = await this.redis.get<RedisRecord | string>(this.key(scope));
    if (raw === null) return this.begin(scope, fingerprint);
    const existing: RedisRecord = typeof raw === 'string' ? JSON.parse(raw) : raw;
    if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (existing.state !== 'done' || !existing.response) return { kind: 'in_progress' };
    return { kind: 'replay', response: existing.response };
  }

  async complete(scope: IdempotencyScope, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: RedisRecord = { fingerprint, state: 'done', response };
    await this.redis.set(this.key(scope), JSON.stringify(record), { ex: IDEMPOTENCY_TTL_SECONDS });
  }

  async release(scope: IdempotencyScope): Promise<void> {
    await this.redis.del(this.key(scope));
  }
}

/**
 * Redis when the runtime wired one into the services (Upstash configured: production, and the
 * embedded runtime's Redis tests), the database otherwise.
 */
export function idempotencyStoreFor(c: Context<AppEnv>): IdempotencyStore {
  const { idempotencyStore, db } = c.get('services');
  return idempotencyStore ?? new DbIdempotencyStore(db);
}

const redisStores = new WeakMap<Redis, RedisIdempotencyStore>();

/** The Redis store of a configuration, or undefined without Upstash (the runtimes call this once). */
export function redisIdempotencyStore(redis: Redis | null): IdempotencyStore | undefined {
  if (!redis) return undefined;
  let store = redisStores.get(redis);
  if (!store) {
    store = new RedisIdempotencyStore(redis);
    redisStores.set(redis, store);
  }
  return store;
}

/** 1-255 visible ASCII characters, no spaces: the middleware's check and the document's `pattern` */
const KEY_PATTERN = '^[!-~]{1,255}$';
const KEY_SHAPE = new RegExp(KEY_PATTERN);
/** The methods a key applies to (on the API-key surface). */
const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH']);

function credentialOf(c: Context<AppEnv>): { tenantId: string; credential: string } | null {
  const auth = c.get('auth');
  if (auth.kind === 'api_key') return { tenantId: auth.tenantId, credential: `api_key:${auth.keyId}` };
  if (auth.kind === 'dashboard') return { tenantId: auth.tenantId, credential: `user:${auth.userId}` };
  return null;
}

/**
 * Idempotency-Key replay for POST and PATCH on the API-key surface; `onApiSurface` says whether a
 * request is one (the runtime's access rules, and a route serving its method).
 */
export function idempotency(
  onApiSurface: (path: string, method: string) => boolean,
  storeFor: (c: Context<AppEnv>) => IdempotencyStore = idempotencyStoreFor,
): MiddlewareHandler<AppEnv> {
  return async function idempotencyKey(c, next) {
    const key = c.req.header('idempotency-key');
    if (key === undefined || !KEYED_METHODS.has(c.req.method) || !onApiSurface(c.req.path, c.req.method)) {
      return next();
    }
    const who = credentialOf(c);
    if (!who) return next();
    if (!KEY_SHAPE.test(key)) {
      throw validationError([
        {
          loc: ['header', 'idempotency-key'],
          msg: 'Idempotency-Key must be 1-255 visible ASCII characters',
          type: 'value_error',
        },
      ]);
    }
    const url = new URL(c.req.url);
    // the bytes, not c.req.text(): Hono caches the first read, and the JSON reader needs them raw
    const sent = new TextDecoder().decode(await c.req.arrayBuffer());
    const fingerprint = await sha256Hex(`${c.req.method} ${url.pathname}${url.search}\n${sent}`);
    const scope: IdempotencyScope = { ...who, key };
    const store = storeFor(c);
    // Fail closed: without the store a retry could run the action twice, so say so and let the
    // client retry later (requests without the header are unaffected).
    const begun = await store.begin(scope, fingerprint).catch((err) => {
      c.get('services').logger.warn({ error: errorField(err) }, 'idempotency store unavailable');
      throw new ApiError(503, Detail.idempotencyStoreUnavailable, {
        'Retry-After': '1',
      });
    });
    if (begun.kind === 'mismatch') {
      throw new ApiError(422, Detail.idempotencyKeyReused);
    }
    if (begun.kind === 'in_progress') throw conflict(Detail.idempotencyInProgress);
    if (begun.kind === 'replay') {
      const { status, headers, body } = begun.response;
      // through c.body so the headers prepared earlier in the chain (request id, rate limits) come along
      for (const [name, value] of Object.entries({ ...headers, [REPLAYED_HEADER]: 'true' }))
        c.header(name, value);
      if (status === 204 || status === 304) return c.body(null, status);
      return c.body(body, status as ContentfulStatusCode);
    }
    try {
      await next();
    } catch (err) {
      await store.release(scope);
      throw err;
    }
    // Kept only when an endpoint ran: a 5xx may be retried, and a 405 means no route serves the
    // method, so neither may hold the key against the request the client meant to send with it.
    if (c.res.status >= 500 || c.res.status === 405) {
      await store.release(scope);
      return;
    }
    const body = await c.res.clone().text();
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = c.res.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // The action is done; if its record cannot be kept, a replay would run it again: release
    // is not possible either, so the key stays in_progress until its TTL and retries get 409.
    await store
      .complete(scope, fingerprint, { status: c.res.status, headers, body })
      .catch((err) =>
        c.get('services').logger.warn({ error: errorField(err) }, 'idempotency record not saved'),
      );
  };
}

/**
 * The middleware as the OpenAPI document shows it (functions/docs/document.ts hands it to the
 * builder): the header it reads on a keyed request, and the two refusals it answers.
 */
export const IDEMPOTENCY_DOC: MiddlewareDoc = {
  appliesTo: (t) => t.surface === 'api' && KEYED_METHODS.has(t.method.toUpperCase()),
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: `Any 1-255 visible ASCII characters, new for each distinct request. The first response is kept ${IDEMPOTENCY_TTL_SECONDS / 3600} hours and replayed (with \`${REPLAYED_HEADER}: true\`) for a retry with the same key; the same key with another request is 422, a retry while the first still runs is 409.`,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: KEY_PATTERN },
      example: 'b3f1c2e4-7a9d-4e35-9c1f-2d8e6a5b4c3d',
    },
  ],
  refusals: {
    '409': {
      description: 'A request with the same Idempotency-Key is still running: retry later',
      detail: Detail.idempotencyInProgress,
      name: 'inProgress',
      summary: 'The first request with this Idempotency-Key is still running',
    },
    '422': {
      description: 'the Idempotency-Key was already used with a different request (`detail` a string)',
      detail: Detail.idempotencyKeyReused,
      name: 'keyReused',
      summary: 'Idempotency-Key reused with another request',
    },
  },
};
