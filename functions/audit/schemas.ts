import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../../shared/audit/audit';
import { pageQuery } from '../../shared/http/pagination';

export const AuditListQuery = pageQuery({ defaultLimit: 50, maxLimit: 200 }).extend({
  action: z.enum(AUDIT_ACTIONS).optional(),
  target_id: z.string().max(64).optional(),
});

export const AuditEntry = z.object({
  id: z.string(),
  actor: z.string(),
  action: z.enum(AUDIT_ACTIONS),
  target_type: z.enum(AUDIT_TARGET_TYPES),
  target_id: z.string(),
  source_ip: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
