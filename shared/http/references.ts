import { type Kysely, sql } from 'kysely';
import { type ValidationIssue, validationError } from './errors';

/**
 * What an id in a request body may point at: a row of the caller's own tenant (docs/input.md).
 * Another tenant's id and a made-up one are the same 422 at the field, so ids of other tenants
 * cannot be probed. `live` names the soft-delete column of tables that have one.
 */
const REFERENCE_KINDS = {
  call: { table: 'calls', live: null, msg: 'Call not found' },
  contact: { table: 'contacts', live: 'deleted_at', msg: 'Contact not found' },
  endUser: { table: 'end_users', live: null, msg: 'Requester not found' },
  tenantUser: { table: 'tenant_users', live: null, msg: 'User not found' },
  businessHours: { table: 'business_hours', live: null, msg: 'Business hours not found' },
  team: { table: 'teams', live: null, msg: 'Team not found' },
} as const;

export type ReferenceKind = keyof typeof REFERENCE_KINDS;

export interface Reference {
  /** the body field, named in the 422's loc */
  field: string;
  kind: ReferenceKind;
  /** null or undefined: not given (or cleared), nothing to check */
  id: string | null | undefined;
}

/**
 * 422 naming every field whose id is not a row of `tenantId`. One query however many are given
 * (an EXISTS per field), none when none is; run it in the transaction that writes the reference.
 */
// biome-ignore lint/suspicious/noExplicitAny: any database with these tables (functions type their own)
export async function assertReferences(db: Kysely<any>, tenantId: string, refs: readonly Reference[]) {
  const given = refs.filter((r): r is Reference & { id: string } => typeof r.id === 'string');
  if (given.length === 0) return;
  const checks = given.map((r, i) => {
    const { table, live } = REFERENCE_KINDS[r.kind];
    const alive = live ? sql` and ${sql.ref(live)} is null` : sql``;
    return sql`exists (select 1 from ${sql.table(table)} where tenant_id = ${tenantId} and id = ${r.id}${alive}) as ${sql.ref(`r${i}`)}`;
  });
  const { rows } = await sql<Record<string, boolean>>`select ${sql.join(checks)}`.execute(db);
  const found = rows[0] ?? {};
  const issues: ValidationIssue[] = given
    .filter((_, i) => !found[`r${i}`])
    .map((r) => ({ loc: ['body', r.field], msg: REFERENCE_KINDS[r.kind].msg, type: 'value_error' }));
  if (issues.length > 0) throw validationError(issues);
}
