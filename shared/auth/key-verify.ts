import { timingSafeEqual } from '../crypto';
import type { Db } from '../db/schema';
import { Detail, unauthorized } from '../http/errors';
import { hashApiKey, isWellFormedApiKey } from './key-format';

/** What a request needs to know about its key: enough to authorise without another query. */
export interface VerifiedKey {
  id: string;
  tenantId: string;
  scopes: ReadonlySet<string>;
  expiresAt: number | null;
  revoked: boolean;
  keyHash: string;
}

/**
 * In-process cache of verified keys (embedded runtime; Workers pass none and do one indexed
 * query per request). Revoke, rotate and delete call `evict`, so they bite on the very next
 * request; the TTL only bounds staleness if several processes share one database.
 */
export class KeyCache {
  #byHash = new Map<string, { key: VerifiedKey | null; until: number }>();
  #hashById = new Map<string, string>();
  /** cache misses (each one costs a lookup): the benchmark and tests read it */
  misses = 0;

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(hash: string): VerifiedKey | null | undefined {
    const hit = this.#byHash.get(hash);
    if (!hit) {
      this.misses++;
      return undefined;
    }
    if (hit.until < Date.now()) {
      this.#byHash.delete(hash);
      this.misses++;
      return undefined;
    }
    return hit.key;
  }

  set(hash: string, key: VerifiedKey | null): void {
    if (this.#byHash.size >= this.maxEntries) {
      const oldest = this.#byHash.keys().next().value;
      if (oldest !== undefined) this.#byHash.delete(oldest);
    }
    // unknown hashes are remembered briefly: a flood of forged-but-checksummed keys stays cheap
    this.#byHash.set(hash, { key, until: Date.now() + (key ? this.ttlMs : 5_000) });
    if (key) this.#hashById.set(key.id, hash);
  }

  evict(keyId: string): void {
    const hash = this.#hashById.get(keyId);
    if (hash) this.#byHash.delete(hash);
    this.#hashById.delete(keyId);
  }

  clear(): void {
    this.#byHash.clear();
    this.#hashById.clear();
  }
}

export interface KeyVerifier {
  db: Db;
  hashSecret: string;
  cache: KeyCache | null;
  /** counts lookups (tests assert a broken checksum costs none) */
  onLookup?: () => void;
}

async function loadKey(deps: KeyVerifier, hash: string): Promise<VerifiedKey | null> {
  deps.onLookup?.();
  const row = await deps.db
    .selectFrom('api_keys')
    .select(['id', 'tenant_id', 'scopes', 'expires_at', 'revoked_at', 'key_hash'])
    .where('key_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    scopes: new Set(row.scopes),
    expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
    revoked: row.revoked_at !== null,
    keyHash: row.key_hash,
  };
}

/** Verifies a presented key or throws 401 `Invalid API key` (with WWW-Authenticate: Bearer). */
export async function verifyApiKey(deps: KeyVerifier, presented: string): Promise<VerifiedKey> {
  if (!isWellFormedApiKey(presented)) throw unauthorized(Detail.invalidApiKey);
  const hash = await hashApiKey(deps.hashSecret, presented);
  let key = deps.cache?.get(hash);
  if (key === undefined) {
    key = await loadKey(deps, hash);
    deps.cache?.set(hash, key);
  }
  if (!key || !timingSafeEqual(key.keyHash, hash)) throw unauthorized(Detail.invalidApiKey);
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
