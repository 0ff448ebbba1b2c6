import type { VerifiedKey, VerifiedKeyCache } from '../context/key-cache';
import type { KeyRecord, KeyRecordCache, ShareClaim } from '../context/rate-limiter';
import { timingSafeEqual } from '../crypto';
import type { Db } from '../db/schema';
import { Detail, unauthorized } from '../http/errors';
import { hashApiKey, isWellFormedApiKey } from './key-format';

// the cache's port is declared in context, below the services that hold one
export type { VerifiedKey, VerifiedKeyCache } from '../context/key-cache';

/**
 * In-process cache of verified keys (embedded runtime; Workers pass none and read the shared
 * cache in Redis with the rate limit, `verifyShared`), keyed by the presented key itself so a warm
 * request skips the HMAC too. It lives only in this process's memory (as the request carrying the
 * key does) and is never logged or persisted. Revoke, rotate and delete call `evict` (through
 * `forgetKey`), so they bite on the very next request in this process. When several processes share
 * one Postgres (`follow`), a revoke answered by one must bite on the next request to any other,
 * and a hit costs no read: the revoke pays instead. Each change's notice (a trigger's NOTIFY
 * naming the key) evicts it here; the revoke answers only once every live process has acknowledged
 * the eviction or, not having done so, outlived its lease (`announceKeyChange`); and a hit is served
 * only while the lease holds (every change committed before its last renewal has been heard) and
 * the LISTEN session is up. So a process whose session stalls or drops stands its cache aside.
 */
export class KeyCache implements VerifiedKeyCache {
  #byToken = new Map<string, { key: VerifiedKey | null; until: number }>();
  #tokenById = new Map<string, string>();
  /**
   * Moves on every eviction. A lookup that began before an eviction may have read the row before the
   * revoke committed: `set` refuses to cache what such a lookup found, or the revoked key would be
   * served from the cache until its TTL.
   */
  #generation = 0;
  /** lookups the cache could not spare (each one costs a query; counted by verifyApiKey): tests read it */
  misses = 0;

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** false while the process cannot hear other processes' key changes: nothing is served or kept */
  #heard = true;
  /** performance.now() time until which hits may be served; alone in its process, always */
  #leaseUntil = Number.POSITIVE_INFINITY;
  #feed: { announceKeyChange(keyId: string): Promise<void> } | null = null;

  /** Follows key changes made by other processes (shared/db/write-watch.ts on Postgres). */
  follow(feed: {
    followKeyChanges(follower: {
      changed(id: string): void;
      heard(on: boolean): void;
      leased(until: number): void;
    }): void;
    announceKeyChange?(keyId: string): Promise<void>;
  }) {
    this.#leaseUntil = Number.NEGATIVE_INFINITY;
    if (feed.announceKeyChange) this.#feed = feed as { announceKeyChange(keyId: string): Promise<void> };
    feed.followKeyChanges({
      changed: (keyId) => this.evict(keyId),
      heard: (on) => {
        this.#heard = on;
        this.clear();
      },
      leased: (until) => {
        this.#leaseUntil = until;
      },
    });
  }

  /**
   * Resolves once no other process following the same feed can serve the key from its cache.
   * Revoke, rotate and delete await it (through `forgetKey`) before they answer.
   */
  evictEverywhere(keyId: string): Promise<void> {
    this.evict(keyId);
    return this.#feed ? this.#feed.announceKeyChange(keyId) : Promise.resolve();
  }

  get(token: string): VerifiedKey | null | undefined {
    if (!this.#heard || this.#leaseUntil <= performance.now()) return undefined;
    const hit = this.#byToken.get(token);
    if (!hit) return undefined;
    if (hit.until < Date.now()) {
      this.#byToken.delete(token);
      return undefined;
    }
    return hit.key;
  }

  /** Read before a lookup starts; pass it to `set`. */
  get generation(): number {
    return this.#generation;
  }

  set(token: string, key: VerifiedKey | null, generation = this.#generation): void {
    if (generation !== this.#generation || !this.#heard) return;
    if (this.#byToken.size >= this.maxEntries) {
      const oldest = this.#byToken.keys().next().value;
      if (oldest !== undefined) this.#byToken.delete(oldest);
    }
    // unknown keys are remembered briefly: a flood of forged-but-checksummed keys stays cheap
    this.#byToken.set(token, { key, until: Date.now() + (key ? this.ttlMs : 5_000) });
    if (key) this.#tokenById.set(key.id, token);
  }

  evict(keyId: string): void {
    this.#generation++;
    const token = this.#tokenById.get(keyId);
    if (token) this.#byToken.delete(token);
    this.#tokenById.delete(keyId);
  }

  clear(): void {
    this.#generation++;
    this.#byToken.clear();
    this.#tokenById.clear();
  }
}

export interface KeyVerifier {
  db: Db;
  hashSecret: string;
  cache: VerifiedKeyCache | null;
  /** the cache every instance shares (Redis, read with the rate limit); absent = none */
  shared?: KeyRecordCache;
  /** the request, for the rate limit counted with the shared cache's read */
  request?: { method: string; path: string };
  /** the request's claim on its tenant's database share, taken with the shared cache's read */
  claimShare?: () => ShareClaim | undefined;
  /** runs the shared cache's fill after the response */
  defer?: (task: () => Promise<unknown>) => void;
  /** counts lookups (tests assert a broken checksum costs none) */
  onLookup?: () => void;
}

async function loadKey(deps: KeyVerifier, hash: string): Promise<VerifiedKey | null> {
  deps.onLookup?.();
  // the tenant's plan in the same statement: the shared cache keeps it for the rate limit
  const row = await deps.db
    .selectFrom('api_keys')
    .leftJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
    .select([
      'api_keys.id',
      'api_keys.tenant_id',
      'api_keys.scopes',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.key_hash',
      'tenants.plan',
    ])
    .where('api_keys.key_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scopes: new Set(row.scopes),
    expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
    revoked: row.revoked_at !== null,
    keyHash: row.key_hash,
    plan: row.plan ?? 'free',
  };
}

const recordOf = (key: VerifiedKey): KeyRecord => ({
  id: key.id,
  tenantId: key.tenantId,
  plan: key.plan ?? 'free',
  scopes: [...key.scopes],
  expiresAt: key.expiresAt,
  revoked: key.revoked,
});

const fromRecord = (r: KeyRecord, hash: string): VerifiedKey => ({
  id: r.id,
  tenantId: r.tenantId,
  scopes: new Set(r.scopes),
  expiresAt: r.expiresAt,
  revoked: r.revoked,
  keyHash: hash,
  plan: r.plan,
});

/**
 * A lookup that took longer than this is not written to the shared cache: a revoke's mark outlives
 * it by far, so a fill that read the row before a revoke committed can never replace the mark.
 */
const FILL_WINDOW_MS = 10_000;

/**
 * Verifies a presented key or throws 401 `Invalid API key` (with WWW-Authenticate: Bearer).
 * A key in the cache is answered synchronously (no promise to await on the hot path); otherwise
 * the answer is a promise.
 */
export function verifyApiKey(deps: KeyVerifier, presented: string): VerifiedKey | Promise<VerifiedKey> {
  // only well-formed tokens are ever cached, so a hit needs no format or checksum check
  const cached = deps.cache?.get(presented);
  if (cached !== undefined) return usable(cached);
  return deps.shared && deps.request
    ? verifyShared(deps, deps.shared, deps.request, presented)
    : verifyUncached(deps, presented);
}

/**
 * A key the isolate verified before, handed to the gate before this request's own check has
 * answered: the request's reads may start on it (the tenant is known), but nothing it reads is
 * shown, nothing written and nothing deferred run until `check` says the key still holds and
 * the rate limit allows (shared/runtime/shortcuts.ts). `check` is the ordinary verification.
 */
export interface SpeculativeKey extends VerifiedKey {
  check: Promise<VerifiedKey>;
  /** the check carries a claim on the tenant's database share (its `share` says what it took) */
  claimsShare: boolean;
}

export const isSpeculative = (key: VerifiedKey): key is SpeculativeKey =>
  (key as Partial<SpeculativeKey>).check !== undefined;

/**
 * Per isolate: the record each key hash last verified to (held by hash, never by the key itself),
 * so that a warm isolate knows a read's tenant before Redis answers. It is a hint, never an
 * authority: a request started on it shows nothing until its own verification agrees.
 */
const knownKeys = new Map<string, KeyRecord>();
const KNOWN_KEYS_MAX = 10_000;

function remember(hash: string, key: VerifiedKey): void {
  if (knownKeys.size >= KNOWN_KEYS_MAX && !knownKeys.has(hash)) {
    const oldest = knownKeys.keys().next().value;
    if (oldest !== undefined) knownKeys.delete(oldest);
  }
  knownKeys.set(hash, recordOf(key));
}

/** Only reads start before their key is confirmed: a write waits for it, as it always did. */
const SPECULATIVE_METHODS = new Set(['GET']);

/**
 * Through the shared cache: one Redis round trip reads the record and counts the rate limit; only
 * a miss asks the database, and the record found is cached after the response. Expiry is checked
 * on every read; revocation, rotation and deletion overwrite the entry before they answer
 * (`forgetKey`), so the next request, on any instance, is refused. A read with a key this isolate
 * verified before gets a SpeculativeKey at once, the same check running behind it.
 */
async function verifyShared(
  deps: KeyVerifier,
  shared: KeyRecordCache,
  request: { method: string; path: string },
  presented: string,
): Promise<VerifiedKey> {
  if (!isWellFormedApiKey(presented)) throw unauthorized(Detail.invalidApiKey);
  const hash = await hashApiKey(deps.hashSecret, presented);
  const claim = deps.claimShare?.();
  const check = confirmShared(deps, shared, request, hash, claim);
  const known = SPECULATIVE_METHODS.has(request.method) ? knownKeys.get(hash) : undefined;
  if (!known || known.revoked || (known.expiresAt !== null && known.expiresAt <= Date.now())) return check;
  // the gate chains it; a refusal is answered from there, not left unhandled here
  check.catch(() => {});
  const speculative: SpeculativeKey = { ...fromRecord(known, hash), check, claimsShare: claim !== undefined };
  return speculative;
}

/** The key's own verification (Redis, then the database on a miss); what it finds is remembered. */
async function confirmShared(
  deps: KeyVerifier,
  shared: KeyRecordCache,
  request: { method: string; path: string },
  hash: string,
  claim: ShareClaim | undefined,
): Promise<VerifiedKey> {
  let key: VerifiedKey;
  try {
    key = await readShared(deps, shared, request, hash, claim);
  } catch (err) {
    knownKeys.delete(hash);
    throw err;
  }
  remember(hash, key);
  return key;
}

async function readShared(
  deps: KeyVerifier,
  shared: KeyRecordCache,
  request: { method: string; path: string },
  hash: string,
  claim: ShareClaim | undefined,
): Promise<VerifiedKey> {
  const hit = await shared.read(hash, request.method, request.path, claim);
  if (hit) {
    let key: VerifiedKey;
    try {
      key = usable(hit.record && fromRecord(hit.record, hash));
    } catch (err) {
      // expired between the script's clock and this one: no request holds the share it took
      const taken = hit.share;
      if (taken?.admitted) deps.defer?.(() => taken.release());
      throw err;
    }
    if (!hit.counted) return key;
    return hit.share ? { ...key, rate: hit.counted, share: hit.share } : { ...key, rate: hit.counted };
  }
  const started = Date.now();
  let key = await loadKey(deps, hash);
  if (key && !timingSafeEqual(key.keyHash, hash)) key = null;
  const record = key && recordOf(key);
  const fill = async () => {
    if (Date.now() - started < FILL_WINDOW_MS) await shared.fill(hash, record);
  };
  if (deps.defer) deps.defer(fill);
  else await fill();
  return usable(key);
}

/**
 * Makes a revoke, rotation or deletion bite on the very next request: the process's cache evicts
 * the key and waits until no other process's cache can serve it, the shared cache marks its hash unusable (overwriting a live record, and outliving any
 * fill begun before the change). Called after the change committed, before the response.
 */
export async function forgetKey(
  caches: {
    keyCache: VerifiedKeyCache | null;
    rateLimiter?: { keyRecords?: KeyRecordCache };
    logger: { error(fields: object, msg: string): void };
  },
  key: { id: string; key_hash: string },
): Promise<void> {
  const cache = caches.keyCache;
  await Promise.all([
    // every other process's cache too: resolved once none can serve the key
    cache?.evictEverywhere ? cache.evictEverywhere(key.id) : cache?.evict(key.id),
    // the change is committed: a Redis outage must not turn it into an error answer; the live
    // record then lapses within its TTL (KEY_RECORD_TTL_MS)
    caches.rateLimiter?.keyRecords
      ?.forget(key.key_hash)
      .catch((err: unknown) =>
        caches.logger.error({ key_id: key.id, error: String(err) }, 'shared key cache: revoke not recorded'),
      ),
  ]);
}

async function verifyUncached(deps: KeyVerifier, presented: string): Promise<VerifiedKey> {
  if (!isWellFormedApiKey(presented)) throw unauthorized(Detail.invalidApiKey);
  if (deps.cache) deps.cache.misses++;
  const generation = deps.cache?.generation ?? 0;
  const hash = await hashApiKey(deps.hashSecret, presented);
  let key = await loadKey(deps, hash);
  if (key && !timingSafeEqual(key.keyHash, hash)) key = null;
  deps.cache?.set(presented, key, generation);
  return usable(key);
}

function usable(key: VerifiedKey | null): VerifiedKey {
  if (!key) throw unauthorized(Detail.invalidApiKey);
  if (key.revoked || (key.expiresAt !== null && key.expiresAt <= Date.now()))
    throw unauthorized(Detail.invalidApiKey);
  return key;
}

/** last_used_at is written off the request path and at most once a minute per key (per process). */
const lastTouched = new Map<string, number>();
export const TOUCH_INTERVAL_MS = 60_000;

export function shouldTouch(keyId: string, now = Date.now()): boolean {
  const last = lastTouched.get(keyId);
  if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return false;
  lastTouched.set(keyId, now);
  if (lastTouched.size > 50_000) lastTouched.clear();
  return true;
}

export async function touchLastUsed(db: Db, keyId: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: new Date() })
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', new Date(Date.now() - TOUCH_INTERVAL_MS)),
      ]),
    )
    .execute();
}
