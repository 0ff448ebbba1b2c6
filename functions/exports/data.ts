import { type Selectable, sql } from 'kysely';
import { pageWithTotal } from '../../shared/db/paging';
import type { Db, Executor } from '../../shared/db/schema';
import type { ExportJobsTable, ExportResource } from '../../shared/db/tables/platform';
import { iso } from '../../shared/events/emit';
import type { Page } from '../../shared/http/pagination';
import { usageEvents } from '../../shared/usage/query';
import { HIDDEN_COLUMN } from './render';
import { EXPORT_MAX_ROWS } from './schemas';

export type ExportJobRow = Selectable<ExportJobsTable>;

const TABLES: Record<Exclude<ExportResource, 'usage'>, string> = {
  tickets: 'tickets',
  calls: 'calls',
  contacts: 'contacts',
  conversations: 'conversations',
};

export interface ExportFilters {
  created_from?: string;
  created_to?: string;
}

/**
 * The rows of one export, oldest first, at most EXPORT_MAX_ROWS + 1 (one more than an export may
 * hold, so the caller can tell the export is too large); hidden columns (secrets, hashes) left out.
 */
export async function exportRows(db: Db, tenantId: string, resource: ExportResource, f: ExportFilters) {
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

export const downloadPath = (id: string) => `/api/v1/tenant/exports/${id}/download`;

export function jobView(j: ExportJobRow, baseUrl?: string) {
  return {
    id: j.id,
    resource: j.resource,
    format: j.format,
    filters: j.filters,
    status: j.status,
    row_count: j.row_count,
    error: j.error,
    created_by: j.created_by,
    created_at: iso(j.created_at),
    completed_at: iso(j.completed_at),
    download_url:
      j.status === 'completed' ? `${(baseUrl ?? '').replace(/\/+$/, '')}${downloadPath(j.id)}` : null,
  };
}

export type JobOutcome = Pick<ExportJobRow, 'status'> &
  Partial<Pick<ExportJobRow, 'row_count' | 'content' | 'error'>>;

/** A job with its outcome, completed now (exports run inside their request); the stored job. */
export async function insertFinishedJob(
  db: Executor,
  job: {
    id: string;
    tenant_id: string;
    resource: ExportResource;
    format: 'csv' | 'json';
    filters: ExportFilters;
    created_by: string;
  } & JobOutcome,
) {
  return db
    .insertInto('export_jobs')
    .values({ ...job, filters: JSON.stringify(job.filters), completed_at: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A page of the tenant's jobs, newest first, without their files, and the total. */
export async function listJobs(
  db: Executor,
  tenantId: string,
  q: Page & { resource?: ExportResource; status?: ExportJobRow['status'] },
) {
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
  return { rows: rows.map((r): ExportJobRow => ({ ...r, content: null })), total };
}

export async function findJob(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('export_jobs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
