import { Hono } from 'hono';
import { requireRole, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { pageWithTotal } from '../../shared/db/paging';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { AuditListQuery } from './schemas';

export const app = new Hono<AppEnv>();

/** GET /api/v2/audit-log: the tenant's key and webhook management history, newest first (tenant admins). */
app.get('/api/v2/audit-log', validate('query', AuditListQuery), async (c) => {
  requireRole(c, 'tenant_admin');
  const q = c.req.valid('query');
  const { db } = c.get('services');
  let base = db.selectFrom('audit_log').where('tenant_id', '=', tenantOf(c));
  if (q.action) base = base.where('action', '=', q.action);
  if (q.target_id) base = base.where('target_id', '=', q.target_id);
  const { rows, total } = await pageWithTotal(base, q, (page) =>
    page
      .select(['id', 'actor', 'action', 'target_type', 'target_id', 'source_ip', 'metadata', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  );
  return c.json(pageEnvelope('entries', rows, total, q));
});
