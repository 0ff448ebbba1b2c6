import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { decryptSecret } from '../../../shared/crypto';
import type { Db } from '../../../shared/db/schema';
import type {
  ContactSyncRunsTable,
  ContactsTable,
  SyncProvider,
} from '../../../shared/db/tables/contacts_kb';
import type { AppConfig } from '../../../shared/env';
import { emitEvent } from '../../../shared/events/emit';
import { badRequest } from '../../../shared/http/errors';
import { newId } from '../../../shared/ids';
import type { HostResolver } from '../../../shared/webhooks/ssrf';
import { syncContactRef } from '../data';
import { PROVIDERS, refuseBaseUrlResolved, type UpstreamContact, UpstreamError } from './providers';

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

type ContactRow = Selectable<ContactsTable>;
type RunRow = Selectable<ContactSyncRunsTable>;

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
  deactivated: number;
  skipped: number;
}

const SYNCED_FIELDS = ['first_name', 'last_name', 'email', 'phone', 'mobile', 'company_name'] as const;

export async function runContactSync(
  deps: { db: Db; config: AppConfig; resolve: HostResolver },
  tenantId: string,
  provider: SyncProvider,
  mode: 'full' | 'incremental',
  triggeredBy: string,
): Promise<{ run: RunRow; emitted: number }> {
  const { db, config } = deps;
  const connection = await db
    .selectFrom('contact_sync_connections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  if (!connection) throw badRequest(`No sync connection configured for ${provider}`);
  const refused = await refuseBaseUrlResolved(
    connection.base_url,
    config.SYNC_HTTP_ALLOW_HOSTS,
    deps.resolve,
  );
  if (refused) throw badRequest(refused);

  let updatedSince: Date | null = null;
  if (mode === 'incremental') {
    const last = await db
      .selectFrom('contact_sync_runs')
      .select('started_at')
      .where('tenant_id', '=', tenantId)
      .where('provider', '=', provider)
      .where('status', '=', 'succeeded')
      .orderBy('started_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    updatedSince = last ? new Date(last.started_at) : null;
  }

  const runId = newId('syncRun');
  await db
    .insertInto('contact_sync_runs')
    .values({ id: runId, tenant_id: tenantId, provider, mode, status: 'running', triggered_by: triggeredBy })
    .execute();

  const fail = async (error: string, pages: number, fetched: number) => {
    const run = await db
      .updateTable('contact_sync_runs')
      .set({ status: 'failed', error: error.slice(0, 1000), pages, fetched, finished_at: new Date() })
      .where('id', '=', runId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { run, emitted: 0 };
  };

  // 1. fetch every page
  const impl = PROVIDERS[provider];
  const token = await decryptSecret(syncKey(config), connection.token_sealed);
  const upstream = new Map<string, UpstreamContact>();
  let fetched = 0;
  let pages = 0;
  let cursor: string | null = null;
  try {
    do {
      if (pages >= MAX_PAGES) throw new UpstreamError(`more than ${MAX_PAGES} pages`);
      let page: Awaited<ReturnType<typeof impl.fetchPage>>;
      try {
        page = await impl.fetchPage({ baseUrl: connection.base_url, token }, cursor, {
          updatedSince,
          timeoutMs: config.SYNC_TIMEOUT_MS,
        });
      } catch (err) {
        if (err instanceof UpstreamError)
          throw new UpstreamError(`${provider} page ${pages + 1}: ${err.message}`);
        throw err;
      }
      pages++;
      fetched += page.contacts.length;
      if (fetched > MAX_ROWS) throw new UpstreamError(`more than ${MAX_ROWS} contacts`);
      // a row seen twice (upstream paging drift) counts once: the later page wins
      for (const u of page.contacts) upstream.set(u.external_id, u);
      cursor = page.next;
    } while (cursor !== null);
  } catch (err) {
    if (err instanceof UpstreamError) return fail(err.message, pages, fetched);
    throw err;
  }

  // 2. apply everything at once
  try {
    return await db.transaction().execute(async (trx) => {
      const counts: Counts = { created: 0, updated: 0, unchanged: 0, deactivated: 0, skipped: 0 };
      let emitted = 0;
      const existing = await trx
        .selectFrom('contacts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('sync_provider', '=', provider)
        .execute();
      const byExternal = new Map<string, ContactRow>();
      for (const row of existing) {
        const prev = row.external_id ? byExternal.get(row.external_id) : undefined;
        // prefer the live row over a deleted one with the same upstream id
        if (row.external_id && (!prev || (prev.deleted_at && !row.deleted_at)))
          byExternal.set(row.external_id, row);
      }
      const emails = [...new Set([...upstream.values()].map((u) => u.email).filter((e): e is string => !!e))];
      const liveByEmail = new Map<string, ContactRow>();
      if (emails.length > 0) {
        for (let i = 0; i < emails.length; i += 1000) {
          const chunk = emails.slice(i, i + 1000);
          const rows = await trx
            .selectFrom('contacts')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('deleted_at', 'is', null)
            .where(sql<string>`lower(email)`, 'in', chunk)
            .execute();
          for (const r of rows) if (r.email) liveByEmail.set(r.email.toLowerCase(), r);
        }
      }

      const seen = new Set<string>();
      const claimed = new Set<string>();
      const now = new Date();
      for (const u of upstream.values()) {
        let row = byExternal.get(u.external_id);
        if (row?.deleted_at) {
          // deleted in the dashboard: the agent's decision stands
          counts.skipped++;
          continue;
        }
        if (u.email) {
          const owner = liveByEmail.get(u.email);
          if (owner && owner.id !== row?.id) {
            if (!row && owner.sync_provider === null && !seen.has(owner.id)) {
              row = owner; // a dashboard contact with the same email: link it to its upstream identity
            } else {
              counts.skipped++; // the email belongs to another contact: never overwrite it
              continue;
            }
          }
          if (claimed.has(u.email)) {
            counts.skipped++;
            continue;
          }
          claimed.add(u.email);
        }

        if (!row) {
          const created = await trx
            .insertInto('contacts')
            .values({
              id: newId('contact'),
              tenant_id: tenantId,
              external_id: u.external_id,
              first_name: u.first_name,
              last_name: u.last_name,
              email: u.email,
              phone: u.phone,
              mobile: u.mobile,
              company_name: u.company_name,
              sync_provider: provider,
              sync_active: u.active,
              custom_attrs: '{}',
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          seen.add(created.id);
          counts.created++;
          await emitEvent(trx, tenantId, 'contact.created', { contact: syncContactRef(created) });
          emitted++;
          continue;
        }

        seen.add(row.id);
        const set: Partial<Record<(typeof SYNCED_FIELDS)[number], string | null>> & {
          sync_active?: boolean;
          sync_provider?: SyncProvider;
          external_id?: string;
        } = {};
        for (const f of SYNCED_FIELDS) {
          const stored = f === 'email' ? (row.email?.toLowerCase() ?? null) : row[f];
          if ((stored ?? null) !== u[f]) set[f] = u[f];
        }
        if (row.sync_active !== u.active) set.sync_active = u.active;
        if (row.sync_provider !== provider || row.external_id !== u.external_id) {
          set.sync_provider = provider;
          set.external_id = u.external_id;
        }
        if (Object.keys(set).length === 0) {
          counts.unchanged++;
          continue;
        }
        const after = await trx
          .updateTable('contacts')
          .set({ ...set, updated_at: now })
          .where('id', '=', row.id)
          .returningAll()
          .executeTakeFirstOrThrow();
        counts.updated++;
        await emitEvent(trx, tenantId, 'contact.updated', { contact: syncContactRef(after) });
        emitted++;
      }

      if (mode === 'full') {
        // reconciliation: live, still-active contacts of this provider that upstream no longer has
        for (const row of existing) {
          if (row.deleted_at || !row.sync_active || seen.has(row.id)) continue;
          if (row.external_id && upstream.has(row.external_id)) continue;
          const after = await trx
            .updateTable('contacts')
            .set({ sync_active: false, updated_at: now })
            .where('id', '=', row.id)
            .returningAll()
            .executeTakeFirstOrThrow();
          counts.deactivated++;
          await emitEvent(trx, tenantId, 'contact.updated', { contact: syncContactRef(after) });
          emitted++;
        }
      }

      const run = await trx
        .updateTable('contact_sync_runs')
        .set({ status: 'succeeded', pages, fetched, ...counts, finished_at: new Date() })
        .where('id', '=', runId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { run, emitted };
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const reason =
      code === '23505'
        ? 'a contact conflicts with an existing one (unique email or external id)'
        : String((err as Error)?.message ?? err);
    return fail(`apply failed: ${reason}`, pages, fetched);
  }
}
