import { Hono } from 'hono';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db } from '../../shared/db/schema';
import type { ExportResource } from '../../shared/db/tables/platform';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { newId } from '../../shared/ids';
import { errorField, type Logger } from '../../shared/log/logger';
import {
  type ExportFilters,
  exportRows,
  findJob,
  insertFinishedJob,
  type JobOutcome,
  jobView,
  listJobs,
} from './data';
import { toCsv, toJson } from './render';
import * as routes from './routes';
import { EXPORT_MAX_ROWS } from './schemas';

/**
 * Export jobs (exports:read / exports:write, plus config:write for listing, creating and
 * reading). A job runs synchronously inside POST (exports are capped at EXPORT_MAX_ROWS rows), so
 * the 201 response is already `completed` (or `failed` with the reason) and carries the download
 * URL. The file is kept with the job and served by GET /api/v1/tenant/exports/{id}/download.
 */
export const app = new Hono<AppEnv>();

register(app, routes.createExport, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, config, logger } = c.get('services');
  const id = newId('export');
  const outcome = await runExport(db, logger, id, tenantId, body);
  // The job is written once, finished (the export runs inside this request): a crash before that
  // leaves no job behind, and under an Idempotency-Key the job commits with the answer, so a retry
  // after a crash gets this job rather than a second one.
  const { answer } = await answerWithWork(
    c,
    (tx) =>
      insertFinishedJob(tx, {
        id,
        tenant_id: tenantId,
        resource: body.resource,
        format: body.format,
        filters: body.filters,
        created_by: actorOf(c),
        ...outcome,
      }),
    (job) => storedJson(201, jobView(job, config.PUBLIC_BASE_URL)),
  );
  return sendAnswer(c, answer);
});

/** The export's file (`completed`), or why there is none (`failed`: too many rows, or an error, logged). */
async function runExport(
  db: Db,
  logger: Logger,
  id: string,
  tenantId: string,
  job: { resource: ExportResource; format: 'csv' | 'json'; filters: ExportFilters },
): Promise<JobOutcome> {
  try {
    const rows = await exportRows(db, tenantId, job.resource, job.filters);
    if (rows.length > EXPORT_MAX_ROWS)
      return {
        status: 'failed',
        error: `Export exceeds ${EXPORT_MAX_ROWS} rows; narrow filters.created_from / created_to`,
      };
    return {
      status: 'completed',
      row_count: rows.length,
      content: job.format === 'csv' ? toCsv(rows) : toJson(rows),
    };
  } catch (err) {
    logger.warn({ export_id: id, error: errorField(err) }, 'export failed');
    return { status: 'failed', error: 'Export could not be produced' };
  }
}

register(app, routes.listExports, async (c) => {
  const q = c.req.valid('query');
  const { db, config } = c.get('services');
  const { rows, total } = await listJobs(db, tenantOf(c), q);
  const jobs = rows.map((r) => jobView(r, config.PUBLIC_BASE_URL));
  return c.json(pageEnvelope('exports', jobs, total, q));
});

async function requireJob(db: Db, tenantId: string, id: string) {
  const job = await findJob(db, tenantId, id);
  if (!job) throw notFound('Export');
  return job;
}

register(app, routes.getExport, async (c) => {
  const job = await requireJob(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  return c.json(jobView(job, c.get('services').config.PUBLIC_BASE_URL));
});

register(app, routes.downloadExport, async (c) => {
  const job = await requireJob(c.get('services').db, tenantOf(c), c.req.valid('param').id);
  if (job.status !== 'completed' || job.content === null) throw notFound('Export file');
  const type = job.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json';
  return c.body(job.content, 200, {
    'Content-Type': type,
    'Content-Disposition': `attachment; filename="${job.resource}-${job.id}.${job.format}"`,
  });
});
