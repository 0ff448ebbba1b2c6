import { Hono } from 'hono';
import type { Transaction } from 'kysely';
import { sql } from 'kysely';
import { roleGuard, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { containsPattern } from '../../shared/db/like';
import type { Database } from '../../shared/db/schema';
import { emitEvent } from '../../shared/events/emit';
import { conflict, notFound, validationError } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import {
  type ContactRow,
  contactsWithCompany,
  contactView,
  dashboardContactRef,
  refreshContactCounts,
} from './data';
import { ContactIdParam, CreateContactBody, ListContactsQuery, UpdateContactBody } from './schemas';

export const contactsApp = new Hono<AppEnv>();

contactsApp.use('/api/v2/contacts', roleGuard('agent'));
contactsApp.use('/api/v2/contacts/*', roleGuard('agent'));

type Trx = Transaction<Database>;

async function loadContact(trx: Trx | AppEnv['Variables']['services']['db'], tenantId: string, id: string) {
  return contactsWithCompany(trx, tenantId).where('contacts.id', '=', id).executeTakeFirst();
}

async function loadLiveContact(db: Parameters<typeof loadContact>[0], tenantId: string, id: string) {
  const row = await loadContact(db, tenantId, id);
  if (!row || row.deleted_at) throw notFound('Contact');
  return row;
}

/** A company the contact may point at: same tenant, not deleted; otherwise 422 at body.company_id. */
async function assertCompany(trx: Trx, tenantId: string, companyId: string) {
  const company = await trx
    .selectFrom('companies')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!company)
    throw validationError([{ loc: ['body', 'company_id'], msg: 'Company not found', type: 'value_error' }]);
}

/** The live-row uniqueness of email and external_id, checked first so the answer is a clear 409. */
async function assertUnique(
  trx: Trx,
  tenantId: string,
  fields: { email?: string | null; external_id?: string | null },
  exceptId: string | null,
  action: 'create' | 'restore' = 'create',
) {
  if (fields.email) {
    let q = trx
      .selectFrom('contacts')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('deleted_at', 'is', null)
      .where(sql<string>`lower(email)`, '=', fields.email.toLowerCase());
    if (exceptId) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst())
      throw conflict(
        action === 'restore'
          ? 'Cannot restore: another contact now uses this email'
          : 'A contact with this email already exists',
      );
  }
  if (fields.external_id) {
    let q = trx
      .selectFrom('contacts')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('deleted_at', 'is', null)
      .where('sync_provider', 'is', null)
      .where('external_id', '=', fields.external_id);
    if (exceptId) q = q.where('id', '<>', exceptId);
    if (await q.executeTakeFirst())
      throw conflict(
        action === 'restore'
          ? 'Cannot restore: another contact now uses this external_id'
          : 'A contact with this external_id already exists',
      );
  }
}

const jsonEq = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const tsEq = (a: Date | string | null | undefined, b: Date | string | null | undefined) =>
  (a == null ? null : new Date(a).getTime()) === (b == null ? null : new Date(b).getTime());

contactsApp.post('/api/v2/contacts', validate('json', CreateContactBody), async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  const id = newId('contact');
  const row = await db.transaction().execute(async (trx) => {
    if (body.company_id) await assertCompany(trx, tenantId, body.company_id);
    await assertUnique(trx, tenantId, body, null);
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
    await refreshContactCounts(trx, [body.company_id]);
    const created = (await loadContact(trx, tenantId, id))!;
    await emitEvent(trx, tenantId, 'contact.created', { contact: dashboardContactRef(created) });
    return created;
  });
  events.kick();
  return c.json(contactView(row), 201);
});

contactsApp.get('/api/v2/contacts', validate('query', ListContactsQuery), async (c) => {
  const query = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  let base = contactsWithCompany(db, tenantId);
  if (!query.include_deleted) base = base.where('contacts.deleted_at', 'is', null);
  if (query.q) {
    const p = containsPattern(query.q);
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
  if (query.tag) base = base.where(sql<boolean>`contacts.tags @> array[${query.tag}]::text[]`);
  if (query.company_id) base = base.where('contacts.company_id', '=', query.company_id);
  if (query.updated_since)
    // compared in SQL, so sub-millisecond and offset forms keep their exact meaning
    base = base.where(sql<boolean>`contacts.updated_at >= ${query.updated_since}::timestamptz`);
  const ordered =
    query.sort === 'updated_at'
      ? base.orderBy('contacts.updated_at', 'asc').orderBy('contacts.id', 'asc')
      : base.orderBy('contacts.created_at', 'desc').orderBy('contacts.id', 'desc');
  const [rows, count] = await Promise.all([
    ordered.limit(query.limit).offset(query.offset).execute(),
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return c.json(pageEnvelope('contacts', rows.map(contactView), Number(count.n), query));
});

contactsApp.get('/api/v2/contacts/:contact_id', validate('param', ContactIdParam), async (c) => {
  const { contact_id } = c.req.valid('param');
  const row = await loadLiveContact(c.get('services').db, tenantOf(c), contact_id);
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

contactsApp.patch(
  '/api/v2/contacts/:contact_id',
  validate('param', ContactIdParam),
  validate('json', UpdateContactBody),
  async (c) => {
    const { contact_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const tenantId = tenantOf(c);
    const { db, events } = c.get('services');
    const result = await db.transaction().execute(async (trx) => {
      const before = await loadLiveContact(trx, tenantId, contact_id);
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
      await trx
        .updateTable('contacts')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', before.id)
        .execute();
      if ('company_id' in set) await refreshContactCounts(trx, [before.company_id, set.company_id as string]);
      const after = (await loadContact(trx, tenantId, before.id))!;
      await emitEvent(trx, tenantId, 'contact.updated', { contact: dashboardContactRef(after) });
      return { row: after, changed: true };
    });
    if (result.changed) events.kick();
    return c.json(contactView(result.row));
  },
);

contactsApp.delete('/api/v2/contacts/:contact_id', validate('param', ContactIdParam), async (c) => {
  const { contact_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  await db.transaction().execute(async (trx) => {
    const before = await loadLiveContact(trx, tenantId, contact_id);
    const now = new Date();
    const done = await trx
      .updateTable('contacts')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', before.id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw notFound('Contact');
    await refreshContactCounts(trx, [before.company_id]);
    await emitEvent(trx, tenantId, 'contact.deleted', { contact: dashboardContactRef(before) });
  });
  events.kick();
  return c.body(null, 204);
});

/**
 * Restore: 200 with the full record. A deleted contact is un-deleted (contact.updated, once);
 * a contact that is not deleted is returned unchanged with no event; 409 when its email or
 * external_id now belongs to a live contact (nothing changes).
 */
contactsApp.post('/api/v2/contacts/:contact_id/restore', validate('param', ContactIdParam), async (c) => {
  const { contact_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db, events } = c.get('services');
  const result = await db.transaction().execute(async (trx) => {
    const before: ContactRow | undefined = await loadContact(trx, tenantId, contact_id);
    if (!before) throw notFound('Contact');
    if (!before.deleted_at) return { row: before, changed: false };
    await assertUnique(
      trx,
      tenantId,
      { email: before.email, external_id: before.sync_provider ? null : before.external_id },
      before.id,
      'restore',
    );
    if (before.sync_provider && before.external_id) {
      const clash = await trx
        .selectFrom('contacts')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('deleted_at', 'is', null)
        .where('sync_provider', '=', before.sync_provider)
        .where('external_id', '=', before.external_id)
        .executeTakeFirst();
      if (clash) throw conflict('Cannot restore: another contact now uses this external_id');
    }
    const done = await trx
      .updateTable('contacts')
      .set({ deleted_at: null, updated_at: new Date() })
      .where('id', '=', before.id)
      .where('deleted_at', 'is not', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return { row: before, changed: false };
    await refreshContactCounts(trx, [before.company_id]);
    const after = (await loadContact(trx, tenantId, before.id))!;
    await emitEvent(trx, tenantId, 'contact.updated', { contact: dashboardContactRef(after) });
    return { row: after, changed: true };
  });
  if (result.changed) events.kick();
  return c.json(contactView(result.row), 200);
});
