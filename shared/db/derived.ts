import type { Db } from './schema';

/**
 * The query builders made from another for one request (a plugin added with `withPlugin`, e.g. the
 * speculative run's, shared/runtime/shortcuts.ts), each mapped to the one it was made from: state
 * kept per database (the usage batch) belongs to that one, not to a builder that lives one request.
 */
const roots = new WeakMap<Db, Db>();

/** Records that `derived` was made from `from`; answers `derived`. */
export function derivedDb(from: Db, derived: Db): Db {
  roots.set(derived, roots.get(from) ?? from);
  return derived;
}

/** The builder `db` was made from (itself when it was made from none). */
export const rootDbOf = (db: Db): Db => roots.get(db) ?? db;

/** Was `db` made from another for one request? */
export const isDerivedDb = (db: Db): boolean => roots.has(db);
