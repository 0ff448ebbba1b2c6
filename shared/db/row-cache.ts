import type { WriteWatch } from './write-watch';

interface Entry {
  version: number;
  expires: number;
  value: unknown;
}

/**
 * A process-local read-through cache for values derived from the watched tables only
 * (WATCHED_TABLES in shared/db/write-watch.ts), e.g. the public view of a ticket by id.
 *
 * An entry is served only while the watch's version is the one it was read at, so any write to
 * those tables through this process (or heard from another) makes every entry a miss; a value read
 * while a write was under way is not stored. The TTL bounds what a missed notification could cost.
 * Keys must carry the tenant: `${tenantId}:${id}`.
 */
export class RowCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly watch: WriteWatch,
    private readonly options: { maxEntries: number; ttlMs: number } = { maxEntries: 10_000, ttlMs: 30_000 },
  ) {}

  async read<V>(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = this.watch.current();
    if (version === null) return load();
    const hit = this.#entries.get(key);
    const now = Date.now();
    if (hit && hit.version === version && hit.expires > now) return hit.value as V;
    const value = await load();
    if (value !== undefined && this.watch.current() === version) this.#store(key, version, now, value);
    return value;
  }

  get size() {
    return this.#entries.size;
  }

  #store(key: string, version: number, now: number, value: unknown) {
    this.#entries.delete(key);
    if (this.#entries.size >= this.options.maxEntries) {
      // Map keeps insertion order: the first key is the oldest entry
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { version, expires: now + this.options.ttlMs, value });
  }
}

/** Reads through `cache` where the runtime has one (Node), straight from `load` where not (edge). */
export function readThrough<V>(
  cache: RowCache | undefined,
  key: string,
  load: () => Promise<V | undefined>,
): Promise<V | undefined> {
  return cache ? cache.read(key, load) : load();
}
