import type { Context } from 'hono';
import { actorOf, tenantOf } from '../auth/credential';
import type { AppEnv } from '../context/app-env';
import type { Executor } from '../db/schema';
import { clientIp } from '../http/client-ip';
import { newId } from '../ids';

import type { AuditAction, AuditTargetType } from './actions';

export { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditAction, type AuditTargetType } from './actions';

/**
 * Writes one audit row, in the caller's transaction so the record commits with the action.
 * Secrets never go into `metadata`.
 */
export async function recordAudit(
  db: Executor,
  c: Context<AppEnv>,
  action: AuditAction,
  target: { type: AuditTargetType; id: string },
  metadata: Record<string, unknown> = {},
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('audit'),
      tenant_id: tenantOf(c),
      actor: actorOf(c),
      action,
      target_type: target.type,
      target_id: target.id,
      source_ip: clientIp(c),
      metadata: JSON.stringify(metadata),
    })
    .execute();
}
