import type { Updateable } from 'kysely';
import { decryptSecret } from '../../../shared/crypto';
import type { Db, Executor } from '../../../shared/db/schema';
import type { ContactsTable, SyncProvider } from '../../../shared/db/tables/contacts_kb';
import type { AppConfig } from '../../../shared/env';
import { emitEvent } from '../../../shared/events/emit';
import { badRequest, Detail } from '../../../shared/http/errors';
import type { HostResolver } from '../../../shared/webhooks/ssrf';
import {
  type ConnectionRow,
  failRun,
  findConnection,
  insertRun,
  insertSyncedContact,
  lastSucceededRunStart,
  liveContactsByEmail,
  type RunCounts,
  type RunProgress,
  type RunRow,
  type SyncedContactRow,
  succeedRun,
  syncContactRef,
  syncedContacts,
  updateSyncedContact,
} from '../data';
import {
  type FetchOptions,
  PROVIDERS,
  type ProviderConnection,
  refuseBaseUrlResolved,
  type UpstreamContact,
  UpstreamError,
} from './providers';

/**
 * One contact-sync run, start to finish, inside the request:
 *  1. fetch EVERY page from the provider (nothing is written while fetching);
 *  2. only when all pages arrived, apply the diff in ONE transaction that also writes the events
 *     and the run's counts. A failed page, or a failed apply, leaves contacts and events untouched
 *     and the run `failed` with its error.
 * Diff-aware: an unchanged contact is neither written nor announced; a changed one is written
 * once and announced with exactly one contact.updated, however many fields changed.
 */

export const MAX_PAGES = 500;
export const MAX_ROWS = 50_000;

export const syncKey = (config: AppConfig) => config.SYNC_ENCRYPTION_KEY || config.WEBHOOK_ENCRYPTION_KEY;

type Mode = 'full' | 'incremental';
type Deps = { db: Db; config: AppConfig; resolve: HostResolver };
type Outcome = { run: RunRow; emitted: number };

export async function runContactSync(
  deps: Deps,
  tenantId: string,
  provider: SyncProvider,
  mode: Mode,
  triggeredBy: string,
): Promise<Outcome> {
  const { db, config } = deps;
  const connection = await usableConnection(deps, tenantId, provider);
  const updatedSince = mode === 'incremental' ? await lastSucceededRunStart(db, tenantId, provider) : null;
  const runId = await insertRun(db, { tenantId, provider, mode, triggeredBy });

  const pulled = await fetchUpstream(config, provider, connection, updatedSince);
  if (pulled.error !== null) return recordFailure(db, runId, pulled.error, pulled);

  try {
    return await db.transaction().execute(async (trx) => {
      const { counts, emitted } = await applyUpstream(trx, { tenantId, provider, mode }, pulled.upstream);
      return { run: await succeedRun(trx, runId, pulled, counts), emitted };
    });
  } catch (err) {
    return recordFailure(db, runId, `apply failed: ${applyFailureReason(err)}`, pulled);
  }
}

// ---- before the run ---------------------------------------------------------------------------

/** The tenant's connection to `provider`, its base URL checked again (400 when missing or refused). */
async function usableConnection(deps: Deps, tenantId: string, provider: SyncProvider) {
  const connection = await findConnection(deps.db, tenantId, provider);
  if (!connection) throw badRequest(Detail.syncNotConfigured(provider));
  const refused = await refuseBaseUrlResolved(
    connection.base_url,
    deps.config.SYNC_HTTP_ALLOW_HOSTS,
    deps.resolve,
  );
  if (refused) throw badRequest(refused);
  return connection;
}

// ---- 1. fetch every page ------------------------------------------------------------------------

interface Pulled extends RunProgress {
  /** by external id: a row seen twice (upstream paging drift) counts once, the later page wins */
  upstream: Map<string, UpstreamContact>;
  /** why fetching stopped short (an upstream failure), or null when every page arrived */
  error: string | null;
}

async function fetchUpstream(
  config: AppConfig,
  provider: SyncProvider,
  connection: ConnectionRow,
  updatedSince: Date | null,
): Promise<Pulled> {
  const token = await decryptSecret(syncKey(config), connection.token_sealed);
  const conn = { baseUrl: connection.base_url, token };
  const options = { updatedSince, timeoutMs: config.SYNC_TIMEOUT_MS };
  const result: Pulled = { upstream: new Map(), pages: 0, fetched: 0, error: null };
  let cursor: string | null = null;
  try {
    do {
      if (result.pages >= MAX_PAGES) throw new UpstreamError(`more than ${MAX_PAGES} pages`);
      const page = await fetchPage(provider, conn, cursor, options, result.pages + 1);
      result.pages++;
      result.fetched += page.contacts.length;
      if (result.fetched > MAX_ROWS) throw new UpstreamError(`more than ${MAX_ROWS} contacts`);
      for (const u of page.contacts) result.upstream.set(u.external_id, u);
      cursor = page.next;
    } while (cursor !== null);
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    result.error = err.message;
  }
  return result;
}

/** One page from the provider; an upstream failure names the provider and the page. */
async function fetchPage(
  provider: SyncProvider,
  conn: ProviderConnection,
  cursor: string | null,
  options: FetchOptions,
  pageNumber: number,
) {
  try {
    return await PROVIDERS[provider].fetchPage(conn, cursor, options);
  } catch (err) {
    if (err instanceof UpstreamError)
      throw new UpstreamError(`${provider} page ${pageNumber}: ${err.message}`);
    throw err;
  }
}

// ---- 2. apply everything at once ----------------------------------------------------------------

interface RunScope {
  tenantId: string;
  provider: SyncProvider;
  mode: Mode;
}

/** What one apply pass knows and counts while it walks the upstream contacts. */
interface Pass extends RunScope {
  trx: Executor;
  now: Date;
  counts: RunCounts;
  emitted: number;
  /** contacts this run created or matched */
  seen: Set<string>;
  /** emails already given to an upstream contact in this run */
  claimed: Set<string>;
}

const SYNCED_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'mobile', 'company_name'] as const;

/** Creates, updates and (full mode) deactivates contacts, with one event per written contact. */
async function applyUpstream(trx: Executor, scope: RunScope, upstream: Map<string, UpstreamContact>) {
  const existing = await syncedContacts(trx, scope.tenantId, scope.provider);
  const byExternal = indexByExternalId(existing);
  const liveByEmail = await liveContactsByEmail(trx, scope.tenantId, upstreamEmails(upstream));
  const pass: Pass = {
    ...scope,
    trx,
    now: new Date(),
    counts: { created: 0, updated: 0, unchanged: 0, deactivated: 0, skipped: 0 },
    emitted: 0,
    seen: new Set(),
    claimed: new Set(),
  };
  for (const u of upstream.values()) {
    const target = matchUpstream(pass, u, byExternal, liveByEmail);
    if (target === 'skip') pass.counts.skipped++;
    else if (target === 'new') await createFromUpstream(pass, u);
    else await updateFromUpstream(pass, target, u);
  }
  if (scope.mode === 'full') await deactivateMissing(pass, existing, upstream);
  return { counts: pass.counts, emitted: pass.emitted };
}

/** The provider's contacts by external id, preferring the live row over a deleted one with the same id. */
function indexByExternalId(existing: SyncedContactRow[]) {
  const byExternal = new Map<string, SyncedContactRow>();
  for (const row of existing) {
    const prev = row.external_id ? byExternal.get(row.external_id) : undefined;
    if (row.external_id && (!prev || (prev.deleted_at && !row.deleted_at)))
      byExternal.set(row.external_id, row);
  }
  return byExternal;
}

const upstreamEmails = (upstream: Map<string, UpstreamContact>) => [
  ...new Set([...upstream.values()].map((u) => u.email).filter((e): e is string => !!e)),
];

/**
 * Which contact an upstream contact lands on: its own row (by external id), a dashboard contact
 * with the same email (linked to its upstream identity), `new`, or `skip` when writing it would
 * resurrect a dashboard deletion or take another contact's email.
 */
function matchUpstream(
  pass: Pass,
  u: UpstreamContact,
  byExternal: Map<string, SyncedContactRow>,
  liveByEmail: Map<string, SyncedContactRow>,
): SyncedContactRow | 'new' | 'skip' {
  let row = byExternal.get(u.external_id);
  // deleted in the dashboard: the agent's decision stands
  if (row?.deleted_at) return 'skip';
  if (u.email) {
    const owner = liveByEmail.get(u.email);
    if (owner && owner.id !== row?.id) {
      // a dashboard contact with the same email: link it; any other owner keeps its email
      if (!row && owner.sync_provider === null && !pass.seen.has(owner.id)) row = owner;
      else return 'skip';
    }
    if (pass.claimed.has(u.email)) return 'skip';
    pass.claimed.add(u.email);
  }
  return row ?? 'new';
}

async function createFromUpstream(pass: Pass, u: UpstreamContact) {
  const created = await insertSyncedContact(pass.trx, pass.tenantId, pass.provider, u);
  pass.seen.add(created.id);
  pass.counts.created++;
  await emitEvent(pass.trx, pass.tenantId, 'contact.created', { contact: syncContactRef(created) });
  pass.emitted++;
}

async function updateFromUpstream(pass: Pass, row: SyncedContactRow, u: UpstreamContact) {
  pass.seen.add(row.id);
  const set = syncedChanges(row, u, pass.provider);
  if (Object.keys(set).length === 0) {
    pass.counts.unchanged++;
    return;
  }
  const after = await updateSyncedContact(pass.trx, row.id, { ...set, updated_at: pass.now });
  pass.counts.updated++;
  await emitEvent(pass.trx, pass.tenantId, 'contact.updated', { contact: syncContactRef(after) });
  pass.emitted++;
}

/** The columns an upstream contact changes on its row (empty when nothing differs). */
function syncedChanges(row: SyncedContactRow, u: UpstreamContact, provider: SyncProvider) {
  const set: Updateable<ContactsTable> = {};
  for (const f of SYNCED_FIELDS) {
    const stored = f === 'email' ? (row.email?.toLowerCase() ?? null) : row[f];
    if ((stored ?? null) !== u[f]) set[f] = u[f];
  }
  if (row.sync_active !== u.active) set.sync_active = u.active;
  if (row.sync_provider !== provider || row.external_id !== u.external_id) {
    set.sync_provider = provider;
    set.external_id = u.external_id;
  }
  return set;
}

/** Full mode's reconciliation: live, still-active contacts of this provider that upstream no longer has. */
async function deactivateMissing(
  pass: Pass,
  existing: SyncedContactRow[],
  upstream: Map<string, UpstreamContact>,
) {
  for (const row of existing) {
    if (row.deleted_at || !row.sync_active || pass.seen.has(row.id)) continue;
    if (row.external_id && upstream.has(row.external_id)) continue;
    const after = await updateSyncedContact(pass.trx, row.id, { sync_active: false, updated_at: pass.now });
    pass.counts.deactivated++;
    await emitEvent(pass.trx, pass.tenantId, 'contact.updated', { contact: syncContactRef(after) });
    pass.emitted++;
  }
}

// ---- record the run -----------------------------------------------------------------------------

/** The run ends `failed` with its error (cut to 1000 characters); it changed nothing and emitted nothing. */
async function recordFailure(db: Db, runId: string, error: string, progress: RunProgress): Promise<Outcome> {
  return { run: await failRun(db, runId, error.slice(0, 1000), progress), emitted: 0 };
}

function applyFailureReason(err: unknown) {
  const code = (err as { code?: unknown }).code;
  return code === '23505'
    ? 'a contact conflicts with an existing one (unique email or external id)'
    : String((err as Error)?.message ?? err);
}
