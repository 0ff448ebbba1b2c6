import type { AuditAction } from '../../shared/audit/audit';
import { cursorPage } from '../../shared/db/paging';
import type { Executor } from '../../shared/db/schema';
import type { Page } from '../../shared/http/pagination';

export interface AuditFilters {
  action?: AuditAction;
  target_id?: string;
  actor?: string;
  /** at or after */
  since?: string;
  /** before */
  until?: string;
}

/** A page of the tenant's audit log, newest first, narrowed by every filter given, and its total. */
export function listAuditEntries(db: Executor, tenantId: string, q: AuditFilters & Page) {
  let base = db.selectFrom('audit_log').where('tenant_id', '=', tenantId);
  if (q.action) base = base.where('action', '=', q.action);
  if (q.target_id) base = base.where('target_id', '=', q.target_id);
  if (q.actor) base = base.where('actor', '=', q.actor);
  if (q.since) base = base.where('created_at', '>=', new Date(q.since));
  if (q.until) base = base.where('created_at', '<', new Date(q.until));
  return cursorPage(base, q, { column: 'created_at', dir: 'desc' }, (page) =>
    page.select(['id', 'actor', 'action', 'target_type', 'target_id', 'source_ip', 'metadata', 'created_at']),
  );
}
