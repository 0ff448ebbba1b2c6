import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type QueryCreator, type Selectable, sql } from 'kysely';
import type { AppEnv } from '../context/app-env';
import type {
  BeginResult,
  IdempotencyClaim,
  IdempotencyScope,
  IdempotencyStore,
  StoredResponse,
} from '../context/idempotency-store';
import { sha256Hex } from '../crypto';
import type { Database, Db } from '../db/schema';
import type { IdempotencyKeysTable } from '../db/tables/integrator';
import type { AppConfig } from '../env';
import { errorField, type Logger } from '../log/logger';
import type { RedisClient as Redis } from '../redis/client';
import { answerSealKey, openBody, type SealedResponse, sealAnswer } from './answer-seal';
import { ApiError, conflict, Detail, validationError } from './errors';
import type { MiddlewareDoc } from './openapi';

export type { BeginResult, IdempotencyClaim, IdempotencyScope, IdempotencyStore, StoredResponse };

/**
 * `Idempotency-Key` on every POST and PATCH of the API-key and dashboard surfaces (Stripe
 * semantics, the same rules on both): the first
 * response for (tenant, credential, key) is kept for 24 h and replayed byte for byte with
 * `Idempotent-Replayed: true`; the same key with a different request is 422; a duplicate that
 * arrives while the first is still running is 409 and never runs the action twice.
 * 5xx responses are not kept, so a retry after a server failure runs again.
 *
 * A running request holds its key under a lease (IdempotencyClaim), renewed while it runs: a
 * process that dies mid-request frees the key when the lease lapses, and a retry then takes it
 * over. Every keyed route commits its answer in its work's transaction, under the lease
 * (answerWithWork, shared/http/answer-with-work.ts), so a retry after a crash replays it instead of
 * doing the work again.
 */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const KEPT_HEADERS = ['content-type', 'location'];

/**
 * The lease is the request timeout: a live request renews it LEASE_RENEWALS times per lease, so
 * a dead one's key is free one lease after its last renewal, within twice the request timeout of
 * its start in the worst case (the bound docs/deploy.md promises).
 */
export const idempotencyLeaseMs = (config: Pick<AppConfig, 'REQUEST_TIMEOUT_MS'>) =>
  config.REQUEST_TIMEOUT_MS;
const LEASE_RENEWALS = 3;

const leaseEnd = (ms: number) => sql<Date>`now() + ${ms} * interval '1 millisecond'`;
const kept = () => leaseEnd(IDEMPOTENCY_TTL_SECONDS * 1000);

/** Embedded runtime: a row per key; the primary key serialises concurrent duplicates. */
export class DbIdempotencyStore implements IdempotencyStore {
  readonly apartFromDatabase = false;
  constructor(private readonly db: Db) {}

  async begin(claim: IdempotencyClaim): Promise<BeginResult> {
    // a record past its 24 h, or a holder past its lease (its process died): the key is free again
    await keyed(this.db.deleteFrom('idempotency_keys'), claim.scope)
      .where('expires_at', '<', sql<Date>`now()`)
      .execute();
    const inserted = await this.db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: claim.scope.tenantId,
        credential: claim.scope.credential,
        idempotency_key: claim.scope.key,
        fingerprint: claim.fingerprint,
        state: 'in_progress',
        lease_token: claim.token,
        expires_at: leaseEnd(claim.leaseMs),
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'credential', 'idempotency_key']).doNothing())
      .returning('state')
      .executeTakeFirst();
    if (inserted) return { kind: 'new' };
    const row = await keyed(
      this.db.selectFrom('idempotency_keys').selectAll(),
      claim.scope,
    ).executeTakeFirst();
    if (!row) return this.begin(claim); // released between our insert and select
    return judge(row, claim);
  }

  async renew(claim: IdempotencyClaim): Promise<boolean> {
    // the claim's own record, also once its work committed the answer (answerWithWork): a done
    // record's 24 h stand, since they end later than any lease
    const res = await keyed(this.db.updateTable('idempotency_keys'), claim.scope)
      .where('lease_token', '=', claim.token)
      .set({ expires_at: sql<Date>`greatest(expires_at, ${leaseEnd(claim.leaseMs)})` })
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  async complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    const sealed = await sealAnswer(claim, response);
    await held(this.db.updateTable('idempotency_keys'), claim)
      .set({
        state: 'done',
        response_status: sealed.status,
        response_headers: JSON.stringify(sealed.headers),
        response_body: sealed.body,
        expires_at: kept(),
      })
      .execute();
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await held(this.db.deleteFrom('idempotency_keys'), claim).execute();
  }
}

interface KeyedQuery<Q> {
  // biome-ignore lint/suspicious/noExplicitAny: the three Kysely builders' where() share this shape
  where(column: any, op: '=', value: string): Q;
}
/** the row of a scope */
function keyed<Q extends KeyedQuery<Q>>(q: Q, scope: IdempotencyScope): Q {
  return q
    .where('tenant_id', '=', scope.tenantId)
    .where('credential', '=', scope.credential)
    .where('idempotency_key', '=', scope.key);
}
/** the row of a scope while the claim holds it (in progress, under its token) */
function held<Q extends KeyedQuery<Q>>(q: Q, claim: IdempotencyClaim): Q {
  return keyed(q, claim.scope).where('lease_token', '=', claim.token).where('state', '=', 'in_progress');
}

/** What a request finds in a record someone else holds or completed (its answer opened). */
async function judge(
  row: Pick<
    Selectable<IdempotencyKeysTable>,
    'fingerprint' | 'state' | 'response_status' | 'response_headers' | 'response_body'
  >,
  claim: IdempotencyClaim,
): Promise<BeginResult> {
  if (row.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
  if (row.state !== 'done' || row.response_status === null) return { kind: 'in_progress' };
  return {
    kind: 'replay',
    response: {
      status: row.response_status,
      headers: row.response_headers ?? {},
      body: await openBody(claim, row.response_body ?? ''),
    },
  };
}

/**
 * The answer of work that committed under `claim` in the database (answerWithWork), for a store
 * apart from it: a key whose holder died after that commit is replayed, not run again.
 */
export async function committedAnswer(db: Db, claim: IdempotencyClaim): Promise<BeginResult | null> {
  const row = await keyed(db.selectFrom('idempotency_keys').selectAll(), claim.scope)
    .where('state', '=', 'done')
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row ? judge(row, claim) : null;
}

/**
 * The statement that commits a request's answer beside its work, under the request's lease
 * (shared/http/answer-with-work.ts), in the work's transaction or as a CTE of the work's one
 * statement: done at once if the claim still holds the key (or, for a store apart from the
 * database, written anew); it writes and returns no row when another holder has the key, and the
 * work is then rolled back.
 */
export function answerUnderLease(
  qc: QueryCreator<Database>,
  claim: IdempotencyClaim,
  answer: SealedResponse,
) {
  return qc
    .insertInto('idempotency_keys')
    .values({
      tenant_id: claim.scope.tenantId,
      credential: claim.scope.credential,
      idempotency_key: claim.scope.key,
      fingerprint: claim.fingerprint,
      state: 'done',
      lease_token: claim.token,
      response_status: answer.status,
      response_headers: JSON.stringify(answer.headers),
      response_body: answer.body,
      expires_at: kept(),
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'credential', 'idempotency_key'])
        .doUpdateSet((eb) => ({
          state: 'done',
          response_status: eb.ref('excluded.response_status'),
          response_headers: eb.ref('excluded.response_headers'),
          response_body: eb.ref('excluded.response_body'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.lease_token', '=', claim.token)
        .where('idempotency_keys.state', '=', 'in_progress'),
    )
    .returning('state');
}

/**
 * A keyed write found the key's answer written by another holder (it took over a lapsed lease,
 * or, with a store apart from the database, committed first): the 409 of a key in use. The key is not completed with it: a retry is answered from the record that holder wrote.
 */
export class LeaseLost extends ApiError {
  constructor() {
    super(409, Detail.idempotencyInProgress);
  }
}

interface RedisRecord {
  fingerprint: string;
  state: 'in_progress' | 'done';
  /** the holder of an in_progress record */
  token?: string;
  response?: StoredResponse;
}

// The record is JSON holding its holder's token (a UUID: found in it only if it is the holder's).
const IF_HELD = `local v = redis.call('GET', KEYS[1])
if not v or not string.find(v, ARGV[1], 1, true) or not string.find(v, '"in_progress"', 1, true) then return 0 end
`;
const RENEW = `${IF_HELD}return redis.call('PEXPIRE', KEYS[1], ARGV[2])`;
const COMPLETE = `${IF_HELD}redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1`;
const RELEASE = `${IF_HELD}return redis.call('DEL', KEYS[1])`;

/**
 * Production: one Redis key per scope. SET NX PX takes it for one lease (renewed while the request
 * runs, so a dead holder's key vanishes with its lease); the answer is then kept for 24 h.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly apartFromDatabase = true;
  constructor(private readonly redis: Redis) {}

  private key(scope: IdempotencyScope) {
    return `idem:${scope.tenantId}:${scope.credential}:${scope.key}`;
  }

  async begin(claim: IdempotencyClaim): Promise<BeginResult> {
    const record: RedisRecord = { fingerprint: claim.fingerprint, state: 'in_progress', token: claim.token };
    const set = await this.redis.set(this.key(claim.scope), JSON.stringify(record), {
      nx: true,
      px: claim.leaseMs,
    });
    if (set === 'OK') return { kind: 'new' };
    const raw = await this.redis.get<RedisRecord | string>(this.key(claim.scope));
    if (raw === null) return this.begin(claim);
    const existing: RedisRecord = typeof raw === 'string' ? JSON.parse(raw) : raw;
    if (existing.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
    if (existing.state !== 'done' || !existing.response) return { kind: 'in_progress' };
    const { status, headers, body } = existing.response;
    return { kind: 'replay', response: { status, headers, body: await openBody(claim, body) } };
  }

  async renew(claim: IdempotencyClaim): Promise<boolean> {
    const n = await this.redis.eval(RENEW, [this.key(claim.scope)], [claim.token, String(claim.leaseMs)]);
    return Number(n) === 1;
  }

  async complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
    const { status, headers, body } = await sealAnswer(claim, response);
    const record: RedisRecord = {
      fingerprint: claim.fingerprint,
      state: 'done',
      response: { status, headers, body },
    };
    await this.redis.eval(
      COMPLETE,
      [this.key(claim.scope)],
      [claim.token, JSON.stringify(record), String(IDEMPOTENCY_TTL_SECONDS)],
    );
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await this.redis.eval(RELEASE, [this.key(claim.scope)], [claim.token]);
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

/**
 * The store's answer; a key a store apart from the database takes anew may still have an answer
 * committed there by a holder that died before completing (answerWithWork): that one is replayed.
 */
async function begin(store: IdempotencyStore, db: Db, claim: IdempotencyClaim): Promise<BeginResult> {
  const begun = await store.begin(claim);
  if (begun.kind !== 'new' || !store.apartFromDatabase) return begun;
  const committed = await committedAnswer(db, claim).catch(async (err) => {
    await store.release(claim).catch(() => undefined);
    throw err;
  });
  if (!committed) return begun;
  if (committed.kind === 'replay') await store.complete(claim, committed.response);
  else await store.release(claim);
  return committed;
}

/** 1-255 visible ASCII characters, no spaces: the middleware's check and the document's `pattern` */
const KEY_PATTERN = '^[!-~]{1,255}$';
const KEY_SHAPE = new RegExp(KEY_PATTERN);
/** The methods a key applies to. */
const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH']);
/**
 * The surfaces whose writes take a key: the API keys' and the dashboard sessions', under the same
 * rules (sign-in, public, end-user and internal routes have no credential a key could be scoped to).
 */
export const KEYED_SURFACES: ReadonlySet<string> = new Set(['api', 'dashboard']);

function credentialOf(c: Context<AppEnv>): { tenantId: string; credential: string } | null {
  const auth = c.get('auth');
  if (auth.kind === 'api_key') return { tenantId: auth.tenantId, credential: `api_key:${auth.keyId}` };
  if (auth.kind === 'dashboard') return { tenantId: auth.tenantId, credential: `user:${auth.userId}` };
  return null;
}

/** Renews the claim's lease LEASE_RENEWALS times per lease until the timer is cleared. */
function renewWhileRunning(store: IdempotencyStore, claim: IdempotencyClaim, logger: Logger) {
  return setInterval(() => {
    store
      .renew(claim)
      .then((held) => held || logger.warn({}, 'idempotency lease lost while its request ran'))
      .catch((err) => logger.warn({ error: errorField(err) }, 'idempotency lease not renewed'));
  }, claim.leaseMs / LEASE_RENEWALS);
}

/** After the endpoint ran: its answer kept for replay under the claim, or the key given back. */
async function keepAnswer(
  c: Context<AppEnv>,
  store: IdempotencyStore,
  claim: IdempotencyClaim,
  logger: Logger,
) {
  // Kept only when an endpoint ran: a 5xx may be retried, and a 405 means no route serves the
  // method, so neither may hold the key against the request the client meant to send with it;
  // nor a lost lease's 409, whose key holds (or will hold) the other holder's answer.
  if (c.res.status >= 500 || c.res.status === 405 || c.error instanceof LeaseLost) {
    await store.release(claim);
    return;
  }
  const body = await c.res.clone().text();
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = c.res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  // The action is done; if its record cannot be kept, a replay would run it again: release is
  // not possible either, so the key stays in_progress until its lease lapses (the answer committed
  // with the work, answerWithWork, is replayed even then).
  await store
    .complete(claim, { status: c.res.status, headers, body })
    .catch((err) => logger.warn({ error: errorField(err) }, 'idempotency record not saved'));
}

/**
 * Idempotency-Key replay for POST and PATCH on the keyed surfaces; `keyedPath` says whether a
 * request is on one (the runtime's access rules, and a route serving its method).
 */
export function idempotency(
  keyedPath: (path: string, method: string) => boolean,
  storeFor: (c: Context<AppEnv>) => IdempotencyStore = idempotencyStoreFor,
): MiddlewareHandler<AppEnv> {
  return async function idempotencyKey(c, next) {
    const key = c.req.header('idempotency-key');
    if (key === undefined || !KEYED_METHODS.has(c.req.method) || !keyedPath(c.req.path, c.req.method)) {
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
    const { config, logger, db } = c.get('services');
    const claim: IdempotencyClaim = {
      scope: { ...who, key },
      fingerprint,
      token: crypto.randomUUID(),
      leaseMs: idempotencyLeaseMs(config),
      sealKey: answerSealKey(config),
    };
    const store = storeFor(c);
    // Fail closed: without the store a retry could run the action twice, so say so and let the
    // client retry later (requests without the header are unaffected).
    const begun = await begin(store, db, claim).catch((err) => {
      logger.warn({ error: errorField(err) }, 'idempotency store unavailable');
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
    c.set('idempotency', claim);
    const renewal = renewWhileRunning(store, claim, logger);
    try {
      await next();
    } catch (err) {
      await store.release(claim);
      throw err;
    } finally {
      clearInterval(renewal);
    }
    await keepAnswer(c, store, claim, logger);
  };
}

/**
 * The middleware as the OpenAPI document shows it (functions/docs/document.ts hands it to the
 * builder): the header it reads on a keyed request, and the two refusals it answers.
 */
export const IDEMPOTENCY_DOC: MiddlewareDoc = {
  // not a raw file upload: the chain passes those by (their fingerprint would read the whole file)
  appliesTo: (t) =>
    KEYED_SURFACES.has(t.surface) && KEYED_METHODS.has(t.method.toUpperCase()) && !t.route.rawBody,
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
