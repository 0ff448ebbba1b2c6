import { Hono } from 'hono';
import { sql } from 'kysely';
import { roleGuard, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { containsPattern } from '../../shared/db/like';
import { pageWithTotal } from '../../shared/db/paging';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { companyView } from './data';
import { CompanyIdParam, CreateCompanyBody, ListCompaniesQuery, UpdateCompanyBody } from './schemas';

export const companiesApp = new Hono<AppEnv>();

companiesApp.use('/api/v2/companies', roleGuard('agent'));
companiesApp.use('/api/v2/companies/*', roleGuard('agent'));

type Db = AppEnv['Variables']['services']['db'];

const findCompany = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('companies')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

async function findLiveCompany(db: Db, tenantId: string, id: string) {
  const row = await findCompany(db, tenantId, id);
  if (!row || row.deleted_at) throw notFound('Company');
  return row;
}

const SCALARS = [
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

companiesApp.post('/api/v2/companies', validate('json', CreateCompanyBody), async (c) => {
  const body = c.req.valid('json');
  const row = await c
    .get('services')
    .db.insertInto('companies')
    .values({
      id: newId('company'),
      tenant_id: tenantOf(c),
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
  return c.json(companyView(row), 201);
});

companiesApp.get('/api/v2/companies', validate('query', ListCompaniesQuery), async (c) => {
  const query = c.req.valid('query');
  const { db } = c.get('services');
  let base = db.selectFrom('companies').where('tenant_id', '=', tenantOf(c));
  if (!query.include_deleted) base = base.where('deleted_at', 'is', null);
  if (query.q) {
    const p = containsPattern(query.q);
    base = base.where((eb) => eb.or([eb('name', 'ilike', p), eb('domain', 'ilike', p)]));
  }
  if (query.tag) base = base.where(sql<boolean>`tags @> array[${query.tag}]::text[]`);
  const { rows, total } = await pageWithTotal(base, query, (q) =>
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('companies', rows.map(companyView), total, query));
});

companiesApp.get('/api/v2/companies/:company_id', validate('param', CompanyIdParam), async (c) => {
  const { company_id } = c.req.valid('param');
  return c.json(companyView(await findLiveCompany(c.get('services').db, tenantOf(c), company_id)));
});

companiesApp.patch(
  '/api/v2/companies/:company_id',
  validate('param', CompanyIdParam),
  validate('json', UpdateCompanyBody),
  async (c) => {
    const { company_id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { db } = c.get('services');
    const before = await findLiveCompany(db, tenantOf(c), company_id);
    const set: Record<string, unknown> = {};
    for (const key of SCALARS) {
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
    if (Object.keys(set).length === 0) return c.json(companyView(before));
    const row = await db
      .updateTable('companies')
      .set({ ...set, updated_at: new Date() })
      .where('id', '=', before.id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound('Company');
    return c.json(companyView(row));
  },
);

/** Soft delete: hidden from lists and gets; its contacts keep company_id (restored together). */
companiesApp.delete('/api/v2/companies/:company_id', validate('param', CompanyIdParam), async (c) => {
  const { company_id } = c.req.valid('param');
  const now = new Date();
  const done = await c
    .get('services')
    .db.updateTable('companies')
    .set({ deleted_at: now, updated_at: now })
    .where('tenant_id', '=', tenantOf(c))
    .where('id', '=', company_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) === 0) throw notFound('Company');
  return c.body(null, 204);
});

/** Restore: 200 with the record; a company that is not deleted is returned unchanged. */
companiesApp.post('/api/v2/companies/:company_id/restore', validate('param', CompanyIdParam), async (c) => {
  const { company_id } = c.req.valid('param');
  const { db } = c.get('services');
  const tenantId = tenantOf(c);
  const before = await findCompany(db, tenantId, company_id);
  if (!before) throw notFound('Company');
  if (!before.deleted_at) return c.json(companyView(before), 200);
  const row = await db
    .updateTable('companies')
    .set({ deleted_at: null, updated_at: new Date() })
    .where('id', '=', before.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return c.json(companyView(row), 200);
});
