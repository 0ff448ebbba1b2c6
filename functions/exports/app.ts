import { Hono } from 'hono';
import { type Selectable, sql } from 'kysely';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { pageWithTotal } from '../../shared/db/paging';
import type { Db } from '../../shared/db/schema';
import type { ExportJobsTable, ExportResource } from '../../shared/db/tables/platform';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { errorField } from '../../shared/log/logger';
import { usageEvents } from '../../shared/usage/query';
import { HIDDEN_COLUMN, toCsv, toJson } from './render';
import { CreateExportBody, EXPORT_MAX_ROWS, ExportIdParam, ListExportsQuery } from './schemas';

/**
 * Export jobs (exports:read / exports:write, plus config:write for listing, creating and
 * reading). A job runs synchronously inside POST (exports are capped at EXPORT_MAX_ROWS rows), so
 * the 201 response is already `completed` (or `failed` with the reason) and carries the download
 * URL. The file is kept with the job and served by GET /api/v1/tenant/exports/{id}/download.
 */
export const app = new Hono<AppEnv>();

const TABLES: Record<Exclude<ExportResource, 'usage'>, string> = {
  tickets: 'tickets',
  calls: 'calls',
  contacts: 'contacts',
  conversations: 'conversations',
};

interface Filters {
  created_from?: string;
  created_to?: string;
}

async function collect(db: Db, tenantId: string, resource: ExportResource, f: Filters) {
  const from = f.created_from ? new Date(f.created_from) : new Date(0);
  const to = f.created_to ? new Date(f.created_to) : new Date(Date.now() + 1000);
  if (resource === 'usage') {
    const { rows } = await usageEvents(db, { tenantId, from, to }, { limit: EXPORT_MAX_ROWS + 1, offset: 0 });
    return rows as unknown as Record<string, unknown>[];
  }
  const { rows } = await sql<Record<string, unknown>>`
    SELECT * FROM ${sql.table(TABLES[resource])}
    WHERE tenant_id = ${tenantId} AND created_at >= ${from} AND created_at < ${to}
    ORDER BY created_at ASC, id ASC LIMIT ${EXPORT_MAX_ROWS + 1}`.execute(db);
  return rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !HIDDEN_COLUMN.test(k))));
}

const downloadPath = (id: string) => `/api/v1/tenant/exports/${id}/download`;

function jobView(j: Selectable<ExportJobsTable>, baseUrl?: string) {
  return {
    id: j.id,
    resource: j.resource,
    format: j.format,
    filters: j.filters,
    status: j.status,
    row_count: j.row_count,
    error: j.error,
    created_by: j.created_by,
    created_at: new Date(j.created_at).toISOString(),
    completed_at: j.completed_at ? new Date(j.completed_at).toISOString() : null,
    download_url:
      j.status === 'completed' ? `${(baseUrl ?? '').replace(/\/+$/, '')}${downloadPath(j.id)}` : null,
  };
}

app.post('/api/v1/tenant/exports', validate('json', CreateExportBody), async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, config, logger } = c.get('services');
  const id = newId('export');
  await db
    .insertInto('export_jobs')
    .values({
      id,
      tenant_id: tenantId,
      resource: body.resource,
      format: body.format,
      filters: JSON.stringify(body.filters),
      status: 'running',
      created_by: actorOf(c),
    })
    .execute();
  let update: Partial<Pick<Selectable<ExportJobsTable>, 'status' | 'row_count' | 'content' | 'error'>>;
  try {
    const rows = await collect(db, tenantId, body.resource, body.filters);
    if (rows.length > EXPORT_MAX_ROWS) {
      update = {
        status: 'failed',
        error: `Export exceeds ${EXPORT_MAX_ROWS} rows; narrow filters.created_from / created_to`,
      };
    } else {
      update = {
        status: 'completed',
        row_count: rows.length,
        content: body.format === 'csv' ? toCsv(rows) : toJson(rows),
      };
    }
  } catch (err) {
    logger.warn({ export_id: id, error: errorField(err) }, 'export failed');
    update = { status: 'failed', error: 'Export could not be produced' };
  }
  const job = await db
    .updateTable('export_jobs')
    .set({ ...update, completed_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return c.json(jobView(job, config.PUBLIC_BASE_URL), 201);
});

app.get('/api/v1/tenant/exports', validate('query', ListExportsQuery), async (c) => {
  const q = c.req.valid('query');
  const tenantId = tenantOf(c);
  const { db, config } = c.get('services');
  let base = db.selectFrom('export_jobs').where('tenant_id', '=', tenantId);
  if (q.resource) base = base.where('resource', '=', q.resource);
  if (q.status) base = base.where('status', '=', q.status);
  const { rows, total } = await pageWithTotal(base, q, (page) =>
    page
      .select([
        'id',
        'tenant_id',
        'resource',
        'format',
        'filters',
        'status',
        'row_count',
        'error',
        'created_by',
        'created_at',
        'completed_at',
      ])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  );
  const jobs = rows.map((r) => jobView({ ...r, content: null }, config.PUBLIC_BASE_URL));
  return c.json(pageEnvelope('exports', jobs, total, q));
});

async function findJob(db: Db, tenantId: string, id: string) {
  const job = await db
    .selectFrom('export_jobs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!job) throw notFound('Export');
  return job;
}

app.get('/api/v1/tenant/exports/:id', validate('param', ExportIdParam), async (c) => {
  const job = await findJob(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  return c.json(jobView(job, c.get('services').config.PUBLIC_BASE_URL));
});

app.get('/api/v1/tenant/exports/:id/download', validate('param', ExportIdParam), async (c) => {
  const job = await findJob(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  if (job.status !== 'completed' || job.content === null) throw notFound('Export file');
  const type = job.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json';
  return c.body(job.content, 200, {
    'Content-Type': type,
    'Content-Disposition': `attachment; filename="${job.resource}-${job.id}.${job.format}"`,
  });
});
