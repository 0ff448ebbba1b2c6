import type { HeldShare, RateDecision } from './rate-limiter';

/** What a request needs to know about its key: enough to authorise without another query. */
export interface VerifiedKey {
  id: string;
  tenantId: string;
  scopes: ReadonlySet<string>;
  expiresAt: number | null;
  revoked: boolean;
  keyHash: string;
  /** the tenant's plan, when the lookup read it (the shared cache keeps it for the rate limit) */
  plan?: string;
  /** this request's rate-limit decision, when the shared cache counted it in the same round trip */
  rate?: RateDecision;
  /** the tenant's database share, when the same round trip took it */
  share?: HeldShare;
}

/**
 * The verified-key cache the services hold (embedded runtime; none on Workers), declared here,
 * below both: shared/auth/key-verify.ts implements it (KeyCache) and reads it.
 */
export interface VerifiedKeyCache {
  get(token: string): VerifiedKey | null | undefined;
  /** read before a lookup starts; pass it to `set` */
  readonly generation: number;
  set(token: string, key: VerifiedKey | null, generation?: number): void;
  /** revoke, rotate and delete call it, so they bite on the very next request */
  evict(keyId: string): void;
  clear(): void;
  /** lookups the cache could not spare (each one costs a query): tests read it */
  misses: number;
  /**
   * evicts the key here and resolves once no other process sharing the database can serve it
   * from its cache (absent: this process is the only one)
   */
  evictEverywhere?(keyId: string): Promise<void>;
}
