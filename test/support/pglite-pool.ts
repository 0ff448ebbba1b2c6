/**
 * PGlite databases lent to test files one after another within a vitest worker (files share their
 * worker's module graph, so this pool lives as long as the worker). Starting a PGlite costs about
 * 2 s of CPU even from the migrated template, most of it PGlite's own start-up; emptying the tables
 * of one that a finished file gave back costs a few milliseconds.
 *
 * What a borrower gets is a database indistinguishable from a fresh copy of the template:
 * - every table the template left empty emptied, and the session reset (`DISCARD ALL`: settings,
 *   temp tables, plans);
 * - an instance whose catalog or seeded rows differ from the template's (a test added an index,
 *   dropped a trigger, changed a setting, ran ANALYZE, edited a migration's lookup rows) is closed
 *   instead of lent again;
 * - a borrower's handle stops working once given back, so a stray query from a finished file fails
 *   there instead of landing in the next file's database.
 */
import { readFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { openPglite, pgliteHandleOn } from '../../shared/db/adapters/pglite';
import type { DatabaseHandle } from '../../shared/db/handle';

/** After this many files an instance is replaced, so no file's leftovers (WAL, freed pages) pile up. */
const USES_PER_INSTANCE = 20;

/** One line per catalog entry a test could change; the md5 of them all is the instance's fingerprint. */
const FINGERPRINT = `
SELECT md5(string_agg(x, ',' ORDER BY x)) AS fingerprint FROM (
  SELECT 'c:' || c.oid || ':' || c.relname || ':' || c.relkind::text || ':' || c.relnatts || ':'
         || coalesce(array_to_string(c.reloptions, ';'), '') FROM pg_class c
  UNION ALL SELECT 'a:' || attrelid || ':' || attnum || ':' || attname || ':' || atttypid || ':' || attnotnull
         || ':' || attisdropped FROM pg_attribute WHERE attrelid >= 16384
  UNION ALL SELECT 'd:' || adrelid || ':' || adnum || ':' || md5(pg_get_expr(adbin, adrelid)) FROM pg_attrdef
  UNION ALL SELECT 't:' || oid || ':' || tgname || ':' || tgenabled::text FROM pg_trigger
  UNION ALL SELECT 'p:' || oid || ':' || proname || ':' || md5(coalesce(prosrc, '')) FROM pg_proc
  UNION ALL SELECT 'k:' || oid || ':' || conname || ':' || convalidated FROM pg_constraint
  UNION ALL SELECT 'n:' || oid || ':' || nspname FROM pg_namespace
         WHERE nspname NOT LIKE 'pg_temp_%' AND nspname NOT LIKE 'pg_toast_temp_%' -- kept after DISCARD ALL
  UNION ALL SELECT 'r:' || oid || ':' || rolname FROM pg_authid
  UNION ALL SELECT 'g:' || setdatabase || ':' || setrole || ':' || array_to_string(setconfig, ';')
         FROM pg_db_role_setting
  UNION ALL SELECT 'e:' || extname || ':' || extversion FROM pg_extension
  UNION ALL SELECT 'st:' || starelid || ':' || staattnum FROM pg_statistic WHERE starelid >= 16384
  __SEEDED__
) entries(x)`;

interface Pooled {
  pglite: PGlite;
  fingerprint: string;
  uses: number;
}

const idle: Pooled[] = [];
/** how many instances wait to be lent (the pool's own test reads it) */
export const idleInstances = () => idle.length;
/**
 * Read from the first instance: the statement that empties every table the template left empty
 * and restarts its sequences, and the fingerprint query, which also covers the rows of the tables
 * the migrations seeded (schema_migrations, lookup tables): those are kept, so a change to them
 * retires the instance.
 */
let layout: { emptying: string; fingerprint: string } | undefined;

async function fingerprintOf(pglite: PGlite) {
  const { rows } = await pglite.query<{ fingerprint: string }>(layout!.fingerprint);
  return rows[0]!.fingerprint;
}

async function readLayout(pglite: PGlite): Promise<{ emptying: string; fingerprint: string }> {
  const { rows: all } = await pglite.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
        AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`,
  );
  const tables: { name: string }[] = [];
  const seeded: string[] = [];
  for (const { name } of all) {
    const { rows } = await pglite.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`);
    if (rows[0]!.n > 0) seeded.push(name);
    else tables.push({ name });
  }
  const { rows: sequences } = await pglite.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'S' AND n.nspname NOT IN ('pg_catalog', 'information_schema')`,
  );
  const emptying = [
    tables.length ? `TRUNCATE ${tables.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE` : '',
    ...sequences.map((s) => `ALTER SEQUENCE ${s.name} RESTART`),
  ]
    .filter(Boolean)
    .join(';\n');
  const seededRows = seeded
    .map(
      (name) =>
        `UNION ALL SELECT 'rows:${name}:' || md5(string_agg(t::text, ',' ORDER BY t::text)) FROM ${name} t`,
    )
    .join('\n  ');
  return { emptying, fingerprint: FINGERPRINT.replace('__SEEDED__', seededRows) };
}

/** A fresh copy of the template, fingerprinted before anyone touches it. */
async function openPooled(template: Blob): Promise<Pooled> {
  const pglite = await openPglite(undefined, template);
  layout ??= await readLayout(pglite);
  return { pglite, fingerprint: await fingerprintOf(pglite), uses: 0 };
}

/**
 * A stand-in for the instance that the borrower's Kysely may "close" (a no-op) and that stops
 * answering once revoked. Methods are bound to the instance: PGlite's use private fields.
 */
function lend(pglite: PGlite) {
  const { proxy, revoke } = Proxy.revocable(pglite, {
    get(target, property) {
      if (property === 'close') return async () => {};
      if (property === 'closed') return false;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { standIn: proxy as PGlite, revoke };
}

/**
 * A database for one test file (or one of its harnesses): a fresh copy of `templatePath` (the
 * migrated dump), or without one an empty PGlite the caller migrates. `giveBack` closes the handle
 * and returns the instance to the pool if it is still the template's.
 */
export async function borrowPglite(
  templatePath: string | undefined,
): Promise<{ handle: DatabaseHandle; giveBack: () => Promise<void> }> {
  // without a template each file migrates its own empty database: nothing to lend
  if (!templatePath) {
    const handle = pgliteHandleOn(await openPglite());
    return { handle, giveBack: () => handle.close() };
  }
  const pooled = idle.pop() ?? (await openPooled(new Blob([readFileSync(templatePath)])));
  const { standIn, revoke } = lend(pooled.pglite);
  const handle = pgliteHandleOn(standIn);
  let givenBack = false;
  return {
    handle,
    async giveBack() {
      if (givenBack) return;
      givenBack = true;
      await handle.close();
      revoke();
      await returnToPool(pooled);
    },
  };
}

async function returnToPool(pooled: Pooled) {
  const { pglite } = pooled;
  pooled.uses += 1;
  try {
    // a borrower may have left a transaction open or a session setting changed
    if (pglite.closed || pooled.uses >= USES_PER_INSTANCE) throw new Error('retired');
    await pglite.exec('ROLLBACK');
    await pglite.exec('DISCARD ALL');
    if ((await fingerprintOf(pglite)) !== pooled.fingerprint) throw new Error('catalog changed');
    if (layout!.emptying) await pglite.exec(layout!.emptying);
    idle.push(pooled);
  } catch {
    if (!pglite.closed) await pglite.close().catch(() => {});
  }
}
