import { defineComponents } from '../../shared/http/openapi';
import { cursorList } from '../../shared/http/pagination';
import { defineRoute } from '../../shared/http/route';
import { AuditEntry, AuditListQuery } from './schemas';

export const listAuditLog = defineRoute({
  operationId: 'listAuditLogEntries',
  method: 'get',
  path: '/api/v2/audit-log',
  access: { role: 'tenant_admin' },
  summary: 'List audit-log entries',
  description:
    'Who created, rotated, revoked or deleted which API key; who created, changed or deleted which webhook; who invited, changed or removed which team member (actor, action, target, time, source IP). Narrow it by `action`, `actor`, `target_id` and a time window (`since` inclusive, `until` exclusive); filters combine, and a malformed one is a 422. Dashboard session with tenant_admin or higher.',
  tags: ['Audit log'],
  query: AuditListQuery,
  responses: {
    200: {
      description: 'A page of entries, newest first',
      schema: cursorList('entries', AuditEntry),
    },
  },
});

export const components = defineComponents({
  output: { AuditEntry },
});
