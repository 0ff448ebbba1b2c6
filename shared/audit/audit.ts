import type { Context } from 'hono';
import { type Insertable, type RawBuilder, sql } from 'kysely';
import { actorOf, tenantOf } from '../auth/credential';
import type { AppEnv } from '../context/app-env';
import type { Executor } from '../db/schema';
import type { AuditLogTable } from '../db/tables/integrator';
import { clientIp } from '../http/client-ip';
import { newId } from '../ids';

import type { AuditAction, AuditTargetType } from './actions';

export { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditAction, type AuditTargetType } from './actions';

/** What an audit row holds; `created_at` is the statement's time (the column's default). */
export type AuditRow = Omit<Insertable<AuditLogTable>, 'created_at'> & { metadata: string };

/**
 * The audit row of an action by this request's actor, for a caller that writes it in the same
 * statement as the action (a data-modifying CTE), so both commit together with no transaction to
 * open. Secrets never go into `metadata`.
 */
export function auditRow(
  c: Context<AppEnv>,
  action: AuditAction,
  target: { type: AuditTargetType; id: string },
  metadata: Record<string, unknown> = {},
): AuditRow {
  return {
    id: newId('audit'),
    tenant_id: tenantOf(c),
    actor: actorOf(c),
    action,
    target_type: target.type,
    target_id: target.id,
    source_ip: clientIp(c),
    metadata: JSON.stringify(metadata),
  };
}

/** The columns `auditSelection` yields, in its order (for `insertInto('audit_log').columns(...)`). */
export const AUDIT_COLUMNS = [
  'id',
  'tenant_id',
  'actor',
  'action',
  'target_type',
  'target_id',
  'source_ip',
  'metadata',
] as const;

/**
 * `row` as a select list, for `INSERT INTO audit_log (AUDIT_COLUMNS) SELECT ... FROM <cte>`: the
 * audit row is written only when the CTE's UPDATE/DELETE touched a row, in the same statement.
 * `metadata` may be an expression over the CTE's columns (what only the deleted row knew). The
 * casts type the parameters, which a select list leaves unknown.
 */
export function auditSelection(row: AuditRow, metadata?: RawBuilder<unknown>) {
  return [
    sql<string>`${row.id}::text`.as('id'),
    sql<string>`${row.tenant_id}::text`.as('tenant_id'),
    sql<string>`${row.actor}::text`.as('actor'),
    sql<string>`${row.action}::text`.as('action'),
    sql<string>`${row.target_type}::text`.as('target_type'),
    sql<string>`${row.target_id}::text`.as('target_id'),
    sql<string | null>`${row.source_ip ?? null}::text`.as('source_ip'),
    (metadata ?? sql`${row.metadata}::jsonb`).as('metadata'),
  ];
}

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
    .values(auditRow(c, action, target, metadata))
    .execute();
}
