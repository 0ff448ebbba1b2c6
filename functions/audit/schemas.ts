import * as z from 'zod';
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../../shared/audit/audit';
import { isoDateTime } from '../../shared/http/instants';
import { cursorPageQuery } from '../../shared/http/pagination';

export const AuditListQuery = cursorPageQuery({ defaultLimit: 50, maxLimit: 200, items: 'entries' }).extend({
  action: z.enum(AUDIT_ACTIONS).optional().describe('Only entries of this action (e.g. `api_key.created`)'),
  target_id: z
    .string()
    .max(64)
    .optional()
    .describe('Only entries about this resource id (`key_…`, `whk_…`, …)'),
  actor: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Only entries by this actor, exactly as entries name it (`user:<id>` or `api_key:<id>`)')
    .meta({ example: 'user:tus_0mha4j8s2Xv5CnT7wRq1Dk' }),
  since: isoDateTime
    .optional()
    .describe('Only entries recorded at or after this instant (ISO 8601 with offset)')
    .meta({ example: '2026-11-01T00:00:00Z' }),
  until: isoDateTime
    .optional()
    .describe('Only entries recorded before this instant (ISO 8601 with offset)')
    .meta({ example: '2026-12-01T00:00:00Z' }),
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
