import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { HeldShare, ShareClaim } from '../context/rate-limiter';
import type { AppConfig } from '../env';
import { ApiError, Detail } from '../http/errors';
import { errorField, type Logger } from '../log/logger';
import { type RedisClient as Redis, redisClient, redisIdentity } from '../redis/client';
import { timeMeterFor } from './db-time';

/**
 * A tenant's share of the database: the cost units its requests hold at once, counted across every
 * process and Worker isolate, so that one tenant's load cannot take the connections (and the CPU)
 * another tenant's requests need. The rate limiter counts requests per window and never sees that
 * 24 slow searches at once fill a pool; this counts what is in flight (Stripe's "concurrent
 * requests limiter", weighted). A request beyond the share is answered 429 with Retry-After and
 * the X-RateLimit-* headers, before it reaches the database.
 *
 * Where it is counted: the Upstash Redis the rate limiter already talks to (one sorted set per
 * tenant, `dbs:<tenant>`, a member per request in flight scored with its lease's end), else (no
 * Redis configured: the embedded runtime) this process's memory, which is then the whole truth.
 * When Redis errors or is slower than RATE_LIMIT_TIMEOUT_MS, the request is judged by this
 * process's memory alone (fail-open to a local bound): each process then still admits at most the
 * share from each tenant, so its own pool stays protected, and nobody gets an error because a
 * cache is down. Failing closed would turn a Redis outage into every tenant's outage; failing open
 * without a local bound would bring back the exhausted pool this exists to prevent.
 */

/**
 * What a request costs: a read or write by id or a plain page 1; a search or a combined filter the
 * whole default share, so a tenant runs one at a time. Such a read keeps a core of the database busy
 * for as long as it runs: two at once from one tenant took both cores of a two-core database from
 * everyone else, and another tenant's plain list waited six times as long at its p99.
 */
export const SHARE_COST = { plain: 1, expensive: 8 } as const;

/** Query keys that choose a page or an order, not rows: they add no cost. */
const PAGE_KEYS = new Set(['limit', 'offset', 'cursor', 'sort', 'order']);

/**
 * The cost of a request from its method and query alone (no route knowledge, so it is decided
 * before any handler runs): a read with a `q` search, or with two or more filters, scans where a
 * read by id looks up one row.
 */
export function shareCostOf(method: string, url: string): number {
  if (method !== 'GET' && method !== 'HEAD') return SHARE_COST.plain;
  const at = url.indexOf('?');
  if (at < 0) return SHARE_COST.plain;
  let filters = 0;
  for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
    if (value === '' || PAGE_KEYS.has(name)) continue;
    if (name === 'q') return SHARE_COST.expensive;
    filters += 1;
  }
  return filters >= 2 ? SHARE_COST.expensive : SHARE_COST.plain;
}

/** One acquisition's answer: admitted or not, and the units in use once it was decided. */
export interface ShareDecision {
  admitted: boolean;
  used: number;
}

/** Where shares are counted. `release` is idempotent; a lease ends a share nobody released. */
export interface ShareStore {
  acquire(tenant: string, id: string, cost: number, share: number, leaseMs: number): Promise<ShareDecision>;
  release(tenant: string, id: string, cost: number): Promise<void>;
}

/** One process's count (the embedded runtime, and the fallback when Redis fails). */
export class MemoryShareStore implements ShareStore {
  readonly inUse = new Map<string, number>();
  async acquire(
    tenant: string,
    _id: string,
    cost: number,
    share: number,
    _leaseMs?: number,
  ): Promise<ShareDecision> {
    const used = this.inUse.get(tenant) ?? 0;
    // a request costing more than the whole share still runs, alone
    if (used > 0 && used + cost > share) return { admitted: false, used };
    this.inUse.set(tenant, used + cost);
    return { admitted: true, used: used + cost };
  }
  async release(tenant: string, _id: string, cost: number): Promise<void> {
    const left = (this.inUse.get(tenant) ?? 0) - cost;
    if (left > 0) this.inUse.set(tenant, left);
    else this.inUse.delete(tenant);
  }
}

/**
 * Lua: `take(set, now, member, cost, share, lease)` drops the members of the tenant's set whose
 * lease ended (a process that died mid-request), sums the live ones' costs and adds this one if it
 * fits; {admitted, used}. One text for both scripts that take a share (this module's and the key's,
 * shared/ratelimit/key-records.ts), so they cannot count differently.
 */
export const SHARE_TAKE_LUA = `
local function take(set, now, member, cost, share, lease)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
  local used = 0
  for _, m in ipairs(redis.call('ZRANGE', set, 0, -1)) do
    used = used + tonumber(string.match(m, '|(%d+)$') or '1')
  end
  if used > 0 and used + cost > share then return {0, used} end
  redis.call('ZADD', set, now + lease, member)
  redis.call('PEXPIRE', set, lease)
  return {1, used + cost}
end
`;

/** KEYS[1] the tenant's set; ARGV: now (ms), member (`<request>|<cost>`), cost, share, lease (ms). */
export const SHARE_SCRIPT = `${SHARE_TAKE_LUA}
return take(KEYS[1], tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
`;

/** The prefix of a tenant's set (under the deployment's key prefix). */
export const SHARE_PREFIX = 'dbs:';

/** A request's member in its tenant's set: its id and its cost, which the scripts sum. */
export const shareMember = (id: string, cost: number) => `${id}|${cost}`;
const member = shareMember;

export class RedisShareStore implements ShareStore {
  private readonly script;
  /** the requests this process admitted from its memory, to release them there */
  private readonly local = new Set<string>();
  readonly fallback = new MemoryShareStore();

  constructor(
    /** the client the sets are kept in (a key's read takes a claim only on the same one) */
    readonly redis: Redis,
    private readonly options: { timeoutMs: number; prefix?: string; onFallback(err: unknown): void },
  ) {
    this.script = redis.createScript<[number, number]>(SHARE_SCRIPT);
  }

  private key(tenant: string) {
    return `${this.options.prefix ?? SHARE_PREFIX}${tenant}`;
  }

  async acquire(tenant: string, id: string, cost: number, share: number, leaseMs: number) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const reply = await Promise.race([
        this.script.exec(
          [this.key(tenant)],
          [String(Date.now()), member(id, cost), String(cost), String(share), String(leaseMs)],
        ),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`db share timeout after ${this.options.timeoutMs} ms`)),
            this.options.timeoutMs,
          );
        }),
      ]);
      if (!Array.isArray(reply) || reply.length !== 2) throw new Error('bad share script reply');
      return { admitted: Number(reply[0]) === 1, used: Number(reply[1]) };
    } catch (err) {
      this.options.onFallback(err);
      const decided = await this.fallback.acquire(tenant, id, cost, share);
      if (decided.admitted) this.local.add(id);
      return decided;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  async release(tenant: string, id: string, cost: number) {
    if (this.local.delete(id)) return this.fallback.release(tenant, id, cost);
    // a failed release is ended by its lease
    await this.redis.zrem(this.key(tenant), member(id, cost)).catch(() => {});
  }
}

/** One store per configuration, kept at module scope (a Worker isolate reuses it across requests). */
const stores = new Map<string, ShareStore>();
export function shareStoreFor(config: AppConfig, logger: Logger): ShareStore {
  const redis = redisClient(config, 'rateLimit');
  const id = redis ? `${redisIdentity(config, redis)}|${config.RATE_LIMIT_TIMEOUT_MS}` : 'memory';
  let store = stores.get(id);
  if (!store) {
    store = redis
      ? new RedisShareStore(redis, {
          timeoutMs: config.RATE_LIMIT_TIMEOUT_MS,
          onFallback: (err) => logger.warn({ error: errorField(err) }, 'db share fell back to memory'),
        })
      : new MemoryShareStore();
    stores.set(id, store);
  }
  return store;
}

/** The tenant whose share a request counts against, or null (internal calls, operators, anonymous). */
function tenantOf(c: Context<AppEnv>): string | null {
  const auth = c.get('auth');
  if (auth.kind === 'anonymous' || auth.kind === 'internal') return null;
  if (auth.kind === 'dashboard' && auth.role === 'super_admin') return null;
  return auth.tenantId;
}

let sequence = 0;
const instance = Math.random().toString(36).slice(2, 10);
const nextShareId = () => {
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return `${instance}.${sequence}`;
};

/** The time meter's share of a request of `cost` (0: not metered). */
const timeShareOf = (config: AppConfig, cost: number) =>
  cost === SHARE_COST.expensive ? config.TENANT_DB_TIME_SHARE : 0;

/**
 * The claim a request makes on its tenant's share, for the key's read to take in its round trip
 * (shared/auth/key-verify.ts, UpstashKeyRecords): only where the share is counted in Redis and no
 * time meter must be read first (a metered read's wait decides before the share is taken).
 */
export function shareClaimOf(
  services: { config: AppConfig; logger: Logger },
  method: string,
  url: string,
): ShareClaim | undefined {
  const { config } = services;
  const share = config.TENANT_DB_SHARE;
  if (share <= 0) return undefined;
  const cost = shareCostOf(method, url);
  if (timeShareOf(config, cost) > 0) return undefined;
  const store = shareStoreFor(config, services.logger);
  if (!(store instanceof RedisShareStore)) return undefined;
  return { id: nextShareId(), cost, share, leaseMs: config.REQUEST_TIMEOUT_MS, redis: store.redis };
}

/**
 * The share the key's round trip took for this request, once: a speculative run waits for its
 * check's, and a rerun after a dropped run takes its own.
 */
async function heldShare(c: Context<AppEnv>, cost: number): Promise<HeldShare | undefined> {
  const auth = c.get('auth');
  if (auth.kind !== 'api_key' || !auth.share) return undefined;
  const held = await Promise.resolve(auth.share).catch(() => undefined);
  if (!held || held.taken || held.cost !== cost) return undefined;
  held.taken = true;
  return held;
}

/** The one 429 of the share, at once or over time: how long to wait and what is left of it. */
const shareRefusal = (share: number, seconds: number, remaining: number) =>
  new ApiError(429, Detail.tenantShareExceeded, {
    'Retry-After': String(seconds),
    'X-RateLimit-Limit': String(share),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': String(seconds),
  });

/**
 * The middleware: after the gate (it needs the tenant) and the rate limiter, before anything that
 * reads the database. It offers the chain `shareClaim`, so that a keyed request's share is taken in
 * its key's round trip.
 */
export function tenantShare(): MiddlewareHandler<AppEnv> & { shareClaim: typeof shareClaimOf } {
  const middleware = async function dbShare(c: Context<AppEnv>, next: Next) {
    const services = c.get('services');
    const share = services.config.TENANT_DB_SHARE;
    const tenant = share > 0 ? tenantOf(c) : null;
    if (!tenant) return next();
    const shares = shareStoreFor(services.config, services.logger);
    const cost = shareCostOf(c.req.method, c.req.url);
    const timeShare = timeShareOf(services.config, cost);
    const meter = timeShare > 0 ? timeMeterFor(services.config, services.logger) : null;
    const wait = meter ? await meter.waitFor(tenant) : 0;
    if (wait > 0) throw shareRefusal(share, Math.ceil(wait / 1000), 0);
    const held = meter ? undefined : await heldShare(c, cost);
    const id = held?.id ?? nextShareId();
    const decided =
      held ?? (await shares.acquire(tenant, id, cost, share, services.config.REQUEST_TIMEOUT_MS));
    if (!decided.admitted) throw shareRefusal(share, 1, share - decided.used);
    const started = Date.now();
    try {
      await next();
    } finally {
      // at once (the in-memory count is freed before the caller can send its next request); the
      // Redis round trip is left to finish after the answer (on Workers, within waitUntil)
      const released = shares.release(tenant, id, cost);
      services.defer(() => released);
      if (meter) {
        const spent = meter.spend(tenant, Date.now() - started, timeShare);
        services.defer(() => spent);
      }
    }
  };
  return Object.assign(middleware, { shareClaim: shareClaimOf });
}
