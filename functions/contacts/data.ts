import type { Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import type { z } from 'zod';
import {
  type CompanyRow,
  type ContactRow,
  companyNameOf,
  companyView,
  contactView,
  SOURCE_OF,
} from '../../shared/contacts/records';
import { type KeptCounts, keptTotal } from '../../shared/db/kept-counts';
import { containsPattern } from '../../shared/db/like';
import { cursorPage, type ListOrder, pageWithTotal } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type {
  ContactSyncConnectionsTable,
  ContactSyncRunsTable,
  ContactsTable,
  SyncProvider,
} from '../../shared/db/tables/contacts_kb';
import { iso } from '../../shared/events/emit';
import type { ContactRef } from '../../shared/events/payloads';
import { newId } from '../../shared/ids';
import type {
  CreateCompanyBody,
  CreateContactBody,
  ListCompaniesQuery,
  ListContactsQuery,
  ListRunsQuery,
} from './schemas';
import type { UpstreamContact } from './sync/providers';

/**
 * Every query of the contacts function (contacts, companies, contact sync) and its views
 * (row -> JSON). The handlers in app.ts and the sync engine call these.
 */

export type SyncedContactRow = Selectable<ContactsTable>;
export type ConnectionRow = Selectable<ContactSyncConnectionsTable>;
export type RunRow = Selectable<ContactSyncRunsTable>;

// ---- views ----------------------------------------------------------------------------------

// a contact's and a company's own views are shared with the search hits: shared/contacts/records.ts
export { type CompanyRow, type ContactRow, companyView, contactView, SOURCE_OF };

export const fullName = (first: string | null, last: string | null) =>
  [first, last].filter((p) => p && p.length > 0).join(' ') || null;

/** `data.contact` of dashboard events (no `source`). */
export const dashboardContactRef = (r: ContactRow): ContactRef => ({
  id: r.id,
  external_id: r.external_id,
  first_name: r.first_name,
  last_name: r.last_name,
  name: fullName(r.first_name, r.last_name),
  email: r.email,
  phone: r.phone,
  company_id: r.company_id,
  company_name: companyNameOf(r),
});

/** `data.contact` of sync events. */
export const syncContactRef = (r: SyncedContactRow): ContactRef => {
  const provider = r.sync_provider ?? 'helpdesk_a';
  return {
    id: r.id,
    external_id: r.external_id,
    provider_type: provider,
    source: SOURCE_OF[provider],
    first_name: r.first_name,
    last_name: r.last_name,
    name: fullName(r.first_name, r.last_name),
    email: r.email,
    phone: r.phone,
    mobile: r.mobile,
    company_name: r.company_name,
    active: r.sync_active,
  };
};

export const connectionView = (r: ConnectionRow) => ({
  provider: r.provider,
  base_url: r.base_url,
  has_token: true as const,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const runView = (r: RunRow) => ({
  id: r.id,
  provider: r.provider,
  mode: r.mode,
  status: r.status,
  pages: Number(r.pages),
  fetched: Number(r.fetched),
  created: Number(r.created),
  updated: Number(r.updated),
  unchanged: Number(r.unchanged),
  deactivated: Number(r.deactivated),
  skipped: Number(r.skipped),
  error: r.error,
  triggered_by: r.triggered_by,
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
});

// ---- contacts -------------------------------------------------------------------------------

/** Contacts with their company's name (the record's company_name). */
export const contactsWithCompany = (db: Executor, tenantId: string) =>
  db
    .selectFrom('contacts')
    .leftJoin('companies', 'companies.id', 'contacts.company_id')
    .selectAll('contacts')
    .select('companies.name as joined_company_name')
    .where('contacts.tenant_id', '=', tenantId);

/** One contact of the tenant, deleted or not, with its company's name. */
export const findContact = (db: Executor, tenantId: string, id: string): Promise<ContactRow | undefined> =>
  contactsWithCompany(db, tenantId).where('contacts.id', '=', id).executeTakeFirst();

/** Whether the tenant has this company, not deleted. */
export async function liveCompanyExists(db: Executor, tenantId: string, companyId: string) {
  const company = await db
    .selectFrom('companies')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return company !== undefined;
}

/** Whether a live contact other than `exceptId` has this email (compared lower-cased). */
export async function liveContactHasEmail(
  db: Executor,
  tenantId: string,
  email: string,
  exceptId: string | null,
) {
  let q = db
    .selectFrom('contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase());
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Whether a live contact other than `exceptId` has this external_id in the same namespace:
 * the dashboard's (`provider` null) or one sync provider's.
 */
export async function liveContactHasExternalId(
  db: Executor,
  tenantId: string,
  externalId: string,
  provider: SyncProvider | null,
  exceptId: string | null,
) {
  let q = db
    .selectFrom('contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('deleted_at', 'is', null);
  q = provider === null ? q.where('sync_provider', 'is', null) : q.where('sync_provider', '=', provider);
  q = q.where('external_id', '=', externalId);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function insertContact(trx: Executor, tenantId: string, id: string, body: CreateContactBody) {
  await trx
    .insertInto('contacts')
    .values({
      id,
      tenant_id: tenantId,
      external_id: body.external_id ?? null,
      first_name: body.first_name ?? null,
      last_name: body.last_name ?? null,
      email: body.email ?? null,
      phone: body.phone ?? null,
      role: body.role ?? null,
      locale: body.locale ?? null,
      timezone: body.timezone ?? null,
      company_id: body.company_id ?? null,
      custom_attrs: JSON.stringify(body.custom_attrs ?? {}),
      tags: body.tags ?? [],
      unsubscribed_from_emails: body.unsubscribed_from_emails ?? false,
      last_seen_at: body.last_seen_at ?? null,
    })
    .execute();
}

/** The filters whose `total` a kept count answers (alone on a request); `q` is counted exactly. */
const KEPT_CONTACTS: KeptCounts = {
  list: 'contacts',
  softDeleted: true,
  counted: ['company_id', 'tag'],
  pairs: ['company_id+tag'],
};
const KEPT_COMPANIES: KeptCounts = { list: 'companies', softDeleted: true, counted: ['tag'] };

/** A page of the tenant's contacts matching the filters, and their total (null on a cursor page). */
export function listContacts(db: Executor, tenantId: string, query: z.output<typeof ListContactsQuery>) {
  let base = contactsWithCompany(db, tenantId);
  if (!query.include_deleted) base = base.where('contacts.deleted_at', 'is', null);
  if (query.q) {
    const p = containsPattern(query.q);
    // the joined text narrows to this tenant's candidates through the trigram index
    // (schema/0019_list_filter_counts.sql); the columns one by one keep the exact meaning
    base = base.where(inSearchIndex('contacts', tenantId, p));
    base = base.where((eb) =>
      eb.or([
        eb('contacts.first_name', 'ilike', p),
        eb('contacts.last_name', 'ilike', p),
        eb(
          sql<string>`coalesce(contacts.first_name, '') || ' ' || coalesce(contacts.last_name, '')`,
          'ilike',
          p,
        ),
        eb('contacts.email', 'ilike', p),
        eb('contacts.phone', 'ilike', p),
        eb('contacts.mobile', 'ilike', p),
      ]),
    );
  }
  if (query.company_id) base = base.where('contacts.company_id', '=', query.company_id);
  if (query.updated_since)
    // compared in SQL, so sub-millisecond and offset forms keep their exact meaning
    base = base.where(sql<boolean>`contacts.updated_at >= ${query.updated_since}::timestamptz`);
  const order: ListOrder =
    query.sort === 'updated_at'
      ? { column: 'contacts.updated_at', dir: 'asc' }
      : { column: 'contacts.created_at', dir: 'desc' };
  return cursorPage(
    base.clearSelect(),
    query,
    order,
    (q) => q.selectAll('contacts').select('companies.name as joined_company_name'),
    keptTotal(db, tenantId, KEPT_CONTACTS, query),
    // apart from the other filters: the planner cannot tell a rare tag from a common one
    query.tag ? hasTag('contacts', tenantId, query.tag) : undefined,
  );
}

/**
 * The `q` candidates: the tenant's rows whose joined search text matches `pattern`, as the
 * tenant-first trigram index (schema/0019_list_filter_counts.sql) reads them.
 */
const inSearchIndex = (table: 'contacts' | 'companies', tenantId: string, pattern: string) => {
  const text =
    table === 'contacts'
      ? sql`contacts_search_text(contacts.first_name, contacts.last_name, contacts.email, contacts.phone, contacts.mobile)`
      : sql`companies_search_text(companies.name, companies.domain)`;
  return sql<boolean>`search_scope(${sql.ref(`${table}.tenant_id`)}) = search_scope(${tenantId}) and ${text} ilike ${pattern}`;
};

/**
 * `tag=x` through the tenant-first GIN index (schema/0017_lists_at_scale.sql): only this tenant's
 * rows carrying the tag are read.
 */
const hasTag = (table: 'contacts' | 'companies', tenantId: string, tag: string) =>
  sql<boolean>`tenant_tag_keys(${sql.ref(`${table}.tenant_id`)}, ${sql.ref(`${table}.tags`)}) @> ARRAY[${`${tenantId}:${tag}`}]::text[]`;

/** Writes `set` (already diffed by the handler) and a new updated_at to one contact. */
export async function updateContactRow(trx: Executor, id: string, set: Record<string, unknown>) {
  await trx
    .updateTable('contacts')
    .set({ ...set, updated_at: new Date() })
    .where('id', '=', id)
    .execute();
}

/** Soft-deletes a live contact; false when it was no longer live. */
export async function softDeleteContact(trx: Executor, id: string) {
  const now = new Date();
  const done = await trx
    .updateTable('contacts')
    .set({ deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Un-deletes a deleted contact; false when it was no longer deleted. */
export async function undeleteContact(trx: Executor, id: string) {
  const done = await trx
    .updateTable('contacts')
    .set({ deleted_at: null, updated_at: new Date() })
    .where('id', '=', id)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/**
 * companies.contact_count = live contacts pointing at the company. Recomputed (not incremented)
 * inside the transaction that changed a contact's company or liveness, so it cannot drift.
 */
export async function refreshContactCounts(trx: Executor, companyIds: (string | null | undefined)[]) {
  const ids = [...new Set(companyIds.filter((id): id is string => !!id))];
  if (ids.length === 0) return;
  await trx
    .updateTable('companies')
    .set({
      contact_count: sql<number>`(select count(*)::int from contacts c where c.company_id = companies.id and c.deleted_at is null)`,
    })
    .where('id', 'in', ids)
    .execute();
}

// ---- companies ------------------------------------------------------------------------------

/** One company of the tenant, deleted or not. */
export const findCompany = (db: Executor, tenantId: string, id: string) =>
  db
    .selectFrom('companies')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const insertCompany = (db: Executor, tenantId: string, body: CreateCompanyBody) =>
  db
    .insertInto('companies')
    .values({
      id: newId('company'),
      tenant_id: tenantId,
      name: body.name,
      domain: body.domain ?? null,
      industry: body.industry ?? null,
      logo_url: body.logo_url ?? null,
      notes: body.notes ?? null,
      plan: body.plan ?? null,
      size: body.size ?? null,
      sla_tier: body.sla_tier ?? null,
      website: body.website ?? null,
      monthly_spend: body.monthly_spend ?? null,
      custom_attrs: JSON.stringify(body.custom_attrs ?? {}),
      tags: body.tags ?? [],
    })
    .returningAll()
    .executeTakeFirstOrThrow();

/** A page of the tenant's companies matching the filters (newest first), and their total. */
export function listCompanies(db: Executor, tenantId: string, query: z.output<typeof ListCompaniesQuery>) {
  let base = db.selectFrom('companies').where('tenant_id', '=', tenantId);
  if (!query.include_deleted) base = base.where('deleted_at', 'is', null);
  if (query.q) {
    const p = containsPattern(query.q);
    // as for contacts: the trigram index over the joined text, then the columns one by one
    base = base.where(inSearchIndex('companies', tenantId, p));
    base = base.where((eb) => eb.or([eb('name', 'ilike', p), eb('domain', 'ilike', p)]));
  }
  const total = keptTotal(db, tenantId, KEPT_COMPANIES, query);
  const tag = query.tag ? hasTag('companies', tenantId, query.tag) : undefined;
  return cursorPage(base, query, { column: 'created_at', dir: 'desc' }, (q) => q.selectAll(), total, tag);
}

/** Writes `set` and a new updated_at to a live company; undefined when it is no longer live. */
export const updateCompanyRow = (db: Executor, id: string, set: Record<string, unknown>) =>
  db
    .updateTable('companies')
    .set({ ...set, updated_at: new Date() })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();

/** Soft-deletes a live company of the tenant; false when there was none. */
export async function softDeleteCompany(db: Executor, tenantId: string, id: string) {
  const now = new Date();
  const done = await db
    .updateTable('companies')
    .set({ deleted_at: now, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

export const undeleteCompany = (db: Executor, id: string) =>
  db
    .updateTable('companies')
    .set({ deleted_at: null, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

// ---- contact sync: connections and runs -----------------------------------------------------

export const findConnection = (db: Executor, tenantId: string, provider: SyncProvider) =>
  db
    .selectFrom('contact_sync_connections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .executeTakeFirst();

/** Creates or replaces the tenant's connection to `provider`. */
export function upsertConnection(
  db: Executor,
  tenantId: string,
  provider: SyncProvider,
  baseUrl: string,
  tokenSealed: string,
) {
  const now = new Date();
  return db
    .insertInto('contact_sync_connections')
    .values({ tenant_id: tenantId, provider, base_url: baseUrl, token_sealed: tokenSealed })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'provider'])
        .doUpdateSet({ base_url: baseUrl, token_sealed: tokenSealed, updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export const listConnections = (db: Executor, tenantId: string) =>
  db
    .selectFrom('contact_sync_connections')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('provider')
    .execute();

/** Removes the tenant's connection to `provider`; false when there was none. */
export async function deleteConnection(db: Executor, tenantId: string, provider: SyncProvider) {
  const done = await db
    .deleteFrom('contact_sync_connections')
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  return Number(done.numDeletedRows) > 0;
}

/** A page of the tenant's runs, newest first, and their total. */
export function listRuns(db: Executor, tenantId: string, query: z.output<typeof ListRunsQuery>) {
  let base = db.selectFrom('contact_sync_runs').where('tenant_id', '=', tenantId);
  if (query.provider) base = base.where('provider', '=', query.provider);
  return pageWithTotal(base, query, (q) => q.selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc'));
}

export const findRun = (db: Executor, tenantId: string, id: string) =>
  db
    .selectFrom('contact_sync_runs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** When the last successful run of `provider` started, or null when none has succeeded. */
export async function lastSucceededRunStart(db: Executor, tenantId: string, provider: SyncProvider) {
  const last = await db
    .selectFrom('contact_sync_runs')
    .select('started_at')
    .where('tenant_id', '=', tenantId)
    .where('provider', '=', provider)
    .where('status', '=', 'succeeded')
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last ? new Date(last.started_at) : null;
}

/** Records a new run as `running`; returns its id. */
export async function insertRun(
  db: Executor,
  run: { tenantId: string; provider: SyncProvider; mode: 'full' | 'incremental'; triggeredBy: string },
) {
  const id = newId('syncRun');
  await db
    .insertInto('contact_sync_runs')
    .values({
      id,
      tenant_id: run.tenantId,
      provider: run.provider,
      mode: run.mode,
      status: 'running',
      triggered_by: run.triggeredBy,
    })
    .execute();
  return id;
}

export interface RunProgress {
  pages: number;
  fetched: number;
}

export interface RunCounts {
  created: number;
  updated: number;
  unchanged: number;
  deactivated: number;
  skipped: number;
}

export const failRun = (db: Executor, id: string, error: string, progress: RunProgress) =>
  db
    .updateTable('contact_sync_runs')
    .set({
      status: 'failed',
      error,
      pages: progress.pages,
      fetched: progress.fetched,
      finished_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const succeedRun = (trx: Executor, id: string, progress: RunProgress, counts: RunCounts) =>
  trx
    .updateTable('contact_sync_runs')
    .set({
      status: 'succeeded',
      pages: progress.pages,
      fetched: progress.fetched,
      ...counts,
      finished_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

// ---- contact sync: applying upstream contacts -----------------------------------------------

/** Every contact (live or deleted) the tenant has from `provider`. */
export const syncedContacts = (trx: Executor, tenantId: string, provider: SyncProvider) =>
  trx
    .selectFrom('contacts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('sync_provider', '=', provider)
    .execute();

/** The tenant's live contacts whose email (lower-cased) is one of `emails`, by that email. */
export async function liveContactsByEmail(trx: Executor, tenantId: string, emails: string[]) {
  const byEmail = new Map<string, SyncedContactRow>();
  for (let i = 0; i < emails.length; i += 1000) {
    const chunk = emails.slice(i, i + 1000);
    const rows = await trx
      .selectFrom('contacts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('deleted_at', 'is', null)
      .where(sql<string>`lower(email)`, 'in', chunk)
      .execute();
    for (const r of rows) if (r.email) byEmail.set(r.email.toLowerCase(), r);
  }
  return byEmail;
}

/** A contact first seen upstream. */
export const insertSyncedContact = (
  trx: Executor,
  tenantId: string,
  provider: SyncProvider,
  u: UpstreamContact,
) =>
  trx
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

/** Writes a sync's changes (they include updated_at) to one contact. */
export const updateSyncedContact = (trx: Executor, id: string, set: Updateable<ContactsTable>) =>
  trx.updateTable('contacts').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
