/**
 * The rate-limiter port. Two implementations behind it: in-memory (embedded runtime, and the
 * fail-open fallback) and Upstash Redis (production, CI). Both count fixed windows aligned to the
 * clock (a minute and a 10-second burst window) and count a request only when every window
 * admits it, so a refused request never eats budget.
 */
export interface RateWindow {
  limit: number;
  windowMs: number;
}

export interface RateRule {
  windows: readonly RateWindow[];
}

export interface WindowState {
  limit: number;
  windowMs: number;
  /** requests left in this window after this one */
  remaining: number;
  /** epoch ms when the window ends */
  reset: number;
}

export interface RateDecision {
  allowed: boolean;
  /** the window the headers report: the blocking one, else the one with the fewest remaining */
  limit: number;
  remaining: number;
  /** epoch ms when the reported window resets */
  reset: number;
  /** seconds to wait before retrying (0 when allowed) */
  retryAfter: number;
  /** the limiter's clock when it decided (epoch ms) */
  now: number;
  windows: WindowState[];
}

/** How a check behaves when the shared store cannot answer in time. */
export interface CheckOptions {
  /**
   * Refuse rather than guess: throw RateLimiterUnavailable instead of judging by this instance's
   * memory, for limits a burst spread over processes must not pass (docs/rate-limits.md).
   */
  failClosed?: boolean;
}

/** The shared store failed or answered too late for a fail-closed check. */
export class RateLimiterUnavailable extends Error {
  constructor(readonly reason: unknown) {
    super('rate limiter unavailable');
  }
}

export interface RateLimiter {
  /** counts one request against every window of the rule; the in-memory limiter answers at once */
  check(key: string, rule: RateRule, options?: CheckOptions): RateDecision | Promise<RateDecision>;
  /** the shared verified-key cache read in the rate limit's round trip (Redis only; absent in memory) */
  keyRecords?: KeyRecordCache;
}

/**
 * A request's claim on its tenant's database share (shared/ratelimit/db-share.ts), handed to the
 * key's read so that the same round trip that counts the rate limit takes the share too: `redis`
 * is the client the share is counted in, and a cache reading another Redis ignores the claim.
 */
export interface ShareClaim {
  /** the request's member in the tenant's set, released by that id */
  id: string;
  cost: number;
  /** TENANT_DB_SHARE */
  share: number;
  leaseMs: number;
  redis: object;
}

/**
 * What the key's round trip decided of a claim (taken only with a count that allowed the request).
 * `taken` is set by the first run of the request that holds it (a speculative run's rerun takes
 * its own), so one acquisition is released once.
 */
export interface HeldShare {
  id: string;
  cost: number;
  admitted: boolean;
  used: number;
  taken: boolean;
  /** gives an admitted share back (a request answered before the share middleware held it) */
  release(): Promise<void>;
}

/**
 * What a shared cache keeps of a verified API key, keyed by the key's hash: never the secret.
 * `plan` is the tenant's, so the rate limit is decided without another query.
 */
export interface KeyRecord {
  id: string;
  tenantId: string;
  plan: string;
  scopes: string[];
  expiresAt: number | null;
  revoked: boolean;
}

/**
 * A verified-key cache every instance shares (Workers' isolates share no memory, and a revoke is
 * answered by another Worker than the one the key is used on). `read` is the rate limit's round
 * trip too: it returns the record stored for the hash and, when the record is usable, the request
 * counted against its tenant's limits for the request's kind (`counted`). `undefined` = not cached
 * (or the cache failed: the caller asks the database, and the rate limit is checked as usual).
 * `null` record = a hash known to have no usable key (unknown, revoked, deleted).
 */
export interface KeyRecordCache {
  read(
    hash: string,
    method: string,
    path: string,
    share?: ShareClaim,
  ): Promise<{ record: KeyRecord | null; counted?: RateDecision; share?: HeldShare } | undefined>;
  /** stores what a database lookup found, unless the hash has an entry already (a revoke's) */
  fill(hash: string, record: KeyRecord | null): Promise<void>;
  /** marks the hash unusable now, in the request that revokes, rotates or deletes the key */
  forget(hash: string): Promise<void>;
}
