import { Hono } from 'hono';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { encryptSecret } from '../../shared/crypto';
import type { Executor } from '../../shared/db/schema';
import { emitEvent } from '../../shared/events/emit';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { conflict, Detail, notFound, validationError } from '../../shared/http/errors';
import { cursorEnvelope, pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { newId } from '../../shared/ids';
import { outboundPortOf } from '../../shared/webhooks/port';
import {
  type CompanyRow,
  type ContactRow,
  companyView,
  connectionView,
  contactView,
  dashboardContactRef,
  deleteConnection,
  findCompany,
  findContact,
  findRun,
  insertCompany,
  insertContact,
  listCompanies,
  listConnections,
  listContacts,
  listRuns,
  liveCompanyExists,
  liveContactHasEmail,
  liveContactHasExternalId,
  refreshContactCounts,
  runView,
  softDeleteCompany,
  softDeleteContact,
  undeleteCompany,
  undeleteContact,
  updateCompanyRow,
  updateContactRow,
  upsertConnection,
} from './data';
import * as routes from './routes';
import type { UpdateCompanyBody, UpdateContactBody } from './schemas';
import { runContactSync, syncKey } from './sync/engine';
import { refuseBaseUrlResolved } from './sync/providers';

/**
 * Contacts and companies (dashboard v2) and contact sync from external helpdesks (`/api/sync`).
 * docs/contacts.md describes every route, the sync providers' APIs and the event rules.
 */
export const app = new Hono<AppEnv>();

const jsonEq = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const tsEq = (a: Date | string | null | undefined, b: Date | string | null | undefined) =>
  (a == null ? null : new Date(a).getTime()) === (b == null ? null : new Date(b).getTime());

// ---- contacts -------------------------------------------------------------------------------

async function findLiveContact(db: Executor, tenantId: string, id: string) {
  const row = await findContact(db, tenantId, id);
  if (!row || row.deleted_at) throw notFound('Contact');
  return row;
}

/** A company the contact may point at: same tenant, not deleted; otherwise 422 at body.company_id. */
async function assertCompany(trx: Executor, tenantId: string, companyId: string) {
  if (!(await liveCompanyExists(trx, tenantId, companyId)))
    throw validationError([{ loc: ['body', 'company_id'], msg: 'Company not found', type: 'value_error' }]);
}

/** The live-row uniqueness of email and external_id, checked first so the answer is a clear 409. */
async function assertUnique(
  trx: Executor,
  tenantId: string,
  fields: { email?: string | null; external_id?: string | null },
  exceptId: string | null,
  action: 'create' | 'restore' = 'create',
) {
  if (fields.email && (await liveContactHasEmail(trx, tenantId, fields.email, exceptId)))
    throw conflict(action === 'restore' ? Detail.contactEmailTakenOnRestore : Detail.contactEmailTaken);
  if (
    fields.external_id &&
    (await liveContactHasExternalId(trx, tenantId, fields.external_id, null, exceptId))
  )
    throw conflict(
      action === 'restore' ? Detail.contactExternalIdTakenOnRestore : Detail.contactExternalIdTakenOnCreate,
    );
}

register(app, routes.createContact, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const id = newId('contact');
  const { answer } = await answerWithWork(
    c,
    async (trx) => {
      if (body.company_id) await assertCompany(trx, tenantId, body.company_id);
      await assertUnique(trx, tenantId, body, null);
      await insertContact(trx, tenantId, id, body);
      await refreshContactCounts(trx, [body.company_id]);
      const created = (await findContact(trx, tenantId, id))!;
      await emitEvent(trx, tenantId, 'contact.created', { contact: dashboardContactRef(created) });
      return created;
    },
    (row) => storedJson(201, contactView(row)),
    { transaction: true },
  );
  events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.listContacts, async (c) => {
  const query = c.req.valid('query');
  const page = await listContacts(c.get('services').db, tenantOf(c), query);
  return c.json(cursorEnvelope('contacts', page.rows.map(contactView), page, query));
});

register(app, routes.getContact, async (c) => {
  const { contact_id } = c.req.valid('param');
  const row = await findLiveContact(c.get('services').db, tenantOf(c), contact_id);
  return c.json(contactView(row));
});

const CONTACT_SCALARS = [
  'external_id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'role',
  'locale',
  'timezone',
  'company_id',
] as const;

/** The columns `body` changes on `before` (empty when the PATCH changes nothing). */
function contactChanges(before: ContactRow, body: UpdateContactBody) {
  const set: Record<string, unknown> = {};
  for (const key of CONTACT_SCALARS) {
    const value = body[key];
    if (value !== undefined && (value ?? null) !== before[key]) set[key] = value ?? null;
  }
  if (body.custom_attrs !== undefined && !jsonEq(body.custom_attrs, before.custom_attrs))
    set.custom_attrs = JSON.stringify(body.custom_attrs);
  if (body.tags !== undefined && !jsonEq(body.tags, before.tags)) set.tags = body.tags;
  if (
    body.unsubscribed_from_emails !== undefined &&
    body.unsubscribed_from_emails !== before.unsubscribed_from_emails
  )
    set.unsubscribed_from_emails = body.unsubscribed_from_emails;
  if (body.last_seen_at !== undefined && !tsEq(body.last_seen_at, before.last_seen_at))
    set.last_seen_at = body.last_seen_at;
  return set;
}

register(app, routes.updateContact, async (c) => {
  const { contact_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const before = await findLiveContact(trx, tenantId, contact_id);
      const set = contactChanges(before, body);
      // A PATCH that changes nothing is a 200 no-op: no write, no event, updated_at unchanged.
      if (Object.keys(set).length === 0) return { row: before, changed: false };
      if (typeof set.company_id === 'string') await assertCompany(trx, tenantId, set.company_id);
      await assertUnique(
        trx,
        tenantId,
        {
          email: set.email as string | undefined,
          external_id: before.sync_provider ? undefined : (set.external_id as string | undefined),
        },
        before.id,
      );
      await updateContactRow(trx, before.id, set);
      if ('company_id' in set) await refreshContactCounts(trx, [before.company_id, set.company_id as string]);
      const after = (await findContact(trx, tenantId, before.id))!;
      await emitEvent(trx, tenantId, 'contact.updated', { contact: dashboardContactRef(after) });
      return { row: after, changed: true };
    },
    ({ row }) => storedJson(200, contactView(row)),
    { transaction: true },
  );
  if (result.changed) events.kick();
  return sendAnswer(c, answer);
});

register(app, routes.deleteContact, async (c) => {
  const { contact_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  await db.transaction().execute(async (trx) => {
    const before = await findLiveContact(trx, tenantId, contact_id);
    if (!(await softDeleteContact(trx, before.id))) throw notFound('Contact');
    await refreshContactCounts(trx, [before.company_id]);
    await emitEvent(trx, tenantId, 'contact.deleted', { contact: dashboardContactRef(before) });
  });
  events.kick();
  return c.body(null, 204);
});

/** 409 (nothing changes) when a deleted contact's email or external_id now belongs to a live contact. */
async function assertRestorable(trx: Executor, tenantId: string, before: ContactRow) {
  await assertUnique(
    trx,
    tenantId,
    { email: before.email, external_id: before.sync_provider ? null : before.external_id },
    before.id,
    'restore',
  );
  if (
    before.sync_provider &&
    before.external_id &&
    (await liveContactHasExternalId(trx, tenantId, before.external_id, before.sync_provider, null))
  )
    throw conflict(Detail.contactExternalIdTakenOnRestore);
}

/**
 * Restore: 200 with the full record. A deleted contact is un-deleted (contact.updated, once);
 * a contact that is not deleted is returned unchanged with no event; 409 when its email or
 * external_id now belongs to a live contact (nothing changes).
 */
register(app, routes.restoreContact, async (c) => {
  const { contact_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { events } = c.get('services');
  const { result, answer } = await answerWithWork(
    c,
    async (trx) => {
      const before = await findContact(trx, tenantId, contact_id);
      if (!before) throw notFound('Contact');
      if (!before.deleted_at) return { row: before, changed: false };
      await assertRestorable(trx, tenantId, before);
      if (!(await undeleteContact(trx, before.id))) return { row: before, changed: false };
      await refreshContactCounts(trx, [before.company_id]);
      const after = (await findContact(trx, tenantId, before.id))!;
      await emitEvent(trx, tenantId, 'contact.updated', { contact: dashboardContactRef(after) });
      return { row: after, changed: true };
    },
    ({ row }) => storedJson(200, contactView(row)),
    { transaction: true },
  );
  if (result.changed) events.kick();
  return sendAnswer(c, answer);
});

// ---- companies ------------------------------------------------------------------------------

async function findLiveCompany(db: Executor, tenantId: string, id: string) {
  const row = await findCompany(db, tenantId, id);
  if (!row || row.deleted_at) throw notFound('Company');
  return row;
}

const COMPANY_SCALARS = [
  'name',
  'domain',
  'industry',
  'logo_url',
  'notes',
  'plan',
  'size',
  'sla_tier',
  'website',
  'monthly_spend',
] as const;

/** The columns `body` changes on `before` (empty when the PATCH changes nothing). */
function companyChanges(before: CompanyRow, body: UpdateCompanyBody) {
  const set: Record<string, unknown> = {};
  for (const key of COMPANY_SCALARS) {
    const value = body[key];
    if (value !== undefined && (value ?? null) !== (before[key] ?? null)) set[key] = value ?? null;
  }
  if (
    body.custom_attrs !== undefined &&
    JSON.stringify(body.custom_attrs) !== JSON.stringify(before.custom_attrs)
  )
    set.custom_attrs = JSON.stringify(body.custom_attrs);
  if (body.tags !== undefined && JSON.stringify(body.tags) !== JSON.stringify(before.tags))
    set.tags = body.tags;
  return set;
}

register(app, routes.createCompany, async (c) => {
  const body = c.req.valid('json');
  const { answer } = await answerWithWork(
    c,
    (ex) => insertCompany(ex, tenantOf(c), body),
    (row) => storedJson(201, companyView(row)),
  );
  return sendAnswer(c, answer);
});

register(app, routes.listCompanies, async (c) => {
  const query = c.req.valid('query');
  const page = await listCompanies(c.get('services').db, tenantOf(c), query);
  return c.json(cursorEnvelope('companies', page.rows.map(companyView), page, query));
});

register(app, routes.getCompany, async (c) => {
  const { company_id } = c.req.valid('param');
  return c.json(companyView(await findLiveCompany(c.get('services').db, tenantOf(c), company_id)));
});

register(app, routes.updateCompany, async (c) => {
  const { company_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const { answer } = await answerWithWork(
    c,
    async (ex) => {
      const before = await findLiveCompany(ex, tenantOf(c), company_id);
      const set = companyChanges(before, body);
      if (Object.keys(set).length === 0) return before;
      const row = await updateCompanyRow(ex, before.id, set);
      if (!row) throw notFound('Company');
      return row;
    },
    (row) => storedJson(200, companyView(row)),
  );
  return sendAnswer(c, answer);
});

/** Soft delete: hidden from lists and gets; its contacts keep company_id (restored together). */
register(app, routes.deleteCompany, async (c) => {
  const { company_id } = c.req.valid('param');
  if (!(await softDeleteCompany(c.get('services').db, tenantOf(c), company_id))) throw notFound('Company');
  return c.body(null, 204);
});

/** Restore: 200 with the record; a company that is not deleted is returned unchanged. */
register(app, routes.restoreCompany, async (c) => {
  const { company_id } = c.req.valid('param');
  const { answer } = await answerWithWork(
    c,
    async (ex) => {
      const before = await findCompany(ex, tenantOf(c), company_id);
      if (!before) throw notFound('Company');
      return before.deleted_at ? undeleteCompany(ex, before.id) : before;
    },
    (row) => storedJson(200, companyView(row)),
  );
  return sendAnswer(c, answer);
});

// ---- contact sync (tenant_admin or higher) --------------------------------------------------

/** Create or replace the tenant's connection to a provider. The token is sealed and never returned. */
register(app, routes.putConnection, async (c) => {
  const { provider } = c.req.valid('param');
  const body = c.req.valid('json');
  const services = c.get('services');
  const { db, config } = services;
  const refused = await refuseBaseUrlResolved(
    body.base_url,
    config.SYNC_HTTP_ALLOW_HOSTS,
    outboundPortOf(services).resolveHost,
  );
  if (refused) throw validationError([{ loc: ['body', 'base_url'], msg: refused, type: 'value_error' }]);
  const sealed = await encryptSecret(syncKey(config), body.api_token);
  const row = await upsertConnection(db, tenantOf(c), provider, body.base_url, sealed);
  return c.json(connectionView(row), 200);
});

register(app, routes.listConnections, async (c) => {
  const rows = await listConnections(c.get('services').db, tenantOf(c));
  return c.json({ connections: rows.map(connectionView) });
});

register(app, routes.deleteConnection, async (c) => {
  const { provider } = c.req.valid('param');
  if (!(await deleteConnection(c.get('services').db, tenantOf(c), provider)))
    throw notFound('Sync connection');
  return c.body(null, 204);
});

/**
 * Trigger a run. It runs to completion inside the request and answers 201 with the run record,
 * whose status is `succeeded` or `failed` (with `error`; a failed run changed nothing).
 */
register(app, routes.triggerRun, async (c) => {
  const body = c.req.valid('json');
  const services = c.get('services');
  const { db, config, events } = services;
  const { run, emitted } = await runContactSync(
    { db, config, resolve: outboundPortOf(services).resolveHost },
    tenantOf(c),
    body.provider,
    body.mode,
    actorOf(c),
  );
  if (emitted > 0) events.kick();
  // A run reads the provider, outside the database, and commits its own writes as it goes: the
  // answer commits after the run (a crash before it runs the sync again on a retry, which a sync
  // takes in its stride: it converges on the provider's state).
  const { answer } = await answerWithWork(
    c,
    async () => run,
    (done) => storedJson(201, runView(done)),
  );
  return sendAnswer(c, answer);
});

register(app, routes.listRuns, async (c) => {
  const query = c.req.valid('query');
  const { rows, total } = await listRuns(c.get('services').db, tenantOf(c), query);
  return c.json(pageEnvelope('runs', rows.map(runView), total, query));
});

register(app, routes.getRun, async (c) => {
  const { run_id } = c.req.valid('param');
  const row = await findRun(c.get('services').db, tenantOf(c), run_id);
  if (!row) throw notFound('Sync run');
  return c.json(runView(row));
});
