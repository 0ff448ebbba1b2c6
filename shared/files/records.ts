import type { Executor, TenantPlan } from '../db/schema';
import type { AttachmentsTable } from '../db/tables/files';

export type OwnerType = AttachmentsTable['owner_type'];
export type AttachmentRow = Omit<AttachmentsTable, 'created_at'> & { created_at: Date };

const OWNER_TABLE = { ticket: 'tickets', conversation: 'conversations', call: 'calls' } as const;

/** Whether the ticket, conversation or call exists in the tenant (another tenant's is "no"). */
export async function ownerExists(db: Executor, tenantId: string, type: OwnerType, id: string) {
  const row = await db
    .selectFrom(OWNER_TABLE[type])
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What an upload checks before it stores anything, in one statement (each statement is a round
 * trip, and on PGlite the larger part of a small upload's time): whether the owner exists in the
 * tenant, the tenant's plan and the bytes its files take now (kept by triggers: one row read, however
 * many files the tenant has).
 */
export async function uploadChecks(
  db: Executor,
  tenantId: string,
  type: OwnerType,
  id: string,
): Promise<{ ownerExists: boolean; plan: TenantPlan; used: number }> {
  const row = await db
    .selectFrom('tenants')
    .select([
      'plan',
      (eb) =>
        eb
          .selectFrom('storage_usage')
          .select('bytes')
          .where('storage_usage.tenant_id', '=', tenantId)
          .as('used'),
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom(OWNER_TABLE[type])
              .select('id')
              .where(`${OWNER_TABLE[type]}.tenant_id` as 'tickets.tenant_id', '=', tenantId)
              .where(`${OWNER_TABLE[type]}.id` as 'tickets.id', '=', id),
          )
          .as('owner_exists'),
    ])
    .where('id', '=', tenantId)
    .executeTakeFirst();
  if (!row) return { ownerExists: false, plan: 'free', used: 0 };
  return { ownerExists: Boolean(row.owner_exists), plan: row.plan, used: Number(row.used ?? 0) };
}

/** The tenant's plan and the bytes its files take now (the per-plan cap's two sides). */
export async function storageUse(
  db: Executor,
  tenantId: string,
): Promise<{ plan: TenantPlan; used: number }> {
  const row = await db
    .selectFrom('tenants')
    .select([
      'plan',
      (eb) =>
        eb
          .selectFrom('storage_usage')
          .select('bytes')
          .where('storage_usage.tenant_id', '=', tenantId)
          .as('used'),
    ])
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return { plan: row.plan, used: Number(row.used ?? 0) };
}

export async function insertAttachment(
  db: Executor,
  row: Omit<AttachmentRow, 'created_at' | 'attached_to'> & { attached_to?: string | null },
) {
  return (await db
    .insertInto('attachments')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow()) as AttachmentRow;
}

export async function findAttachment(
  db: Executor,
  tenantId: string,
  owner: { type: OwnerType; id: string } | null,
  id: string,
): Promise<AttachmentRow | undefined> {
  let q = db.selectFrom('attachments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (owner) q = q.where('owner_type', '=', owner.type).where('owner_id', '=', owner.id);
  return (await q.executeTakeFirst()) as AttachmentRow | undefined;
}

/** A ticket's, conversation's or call's files, oldest first. */
export async function listAttachments(db: Executor, tenantId: string, type: OwnerType, ownerId: string) {
  return (await db
    .selectFrom('attachments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('owner_type', '=', type)
    .where('owner_id', '=', ownerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as AttachmentRow[];
}

export async function deleteAttachment(db: Executor, tenantId: string, id: string) {
  await db.deleteFrom('attachments').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** The files sent with each of `itemIds` (replies or messages), by item, oldest first. */
export async function attachmentsOf(
  db: Executor,
  tenantId: string,
  itemIds: readonly string[],
): Promise<Map<string, AttachmentRow[]>> {
  const byItem = new Map<string, AttachmentRow[]>();
  if (itemIds.length === 0) return byItem;
  const rows = (await db
    .selectFrom('attachments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('attached_to', 'in', [...itemIds])
    .orderBy('created_at')
    .orderBy('id')
    .execute()) as AttachmentRow[];
  for (const row of rows) {
    const list = byItem.get(row.attached_to!) ?? [];
    list.push(row);
    byItem.set(row.attached_to!, list);
  }
  return byItem;
}

/**
 * Marks `ids` as sent with `itemId`: only files of the same owner not yet sent with anything else
 * (locked, so two replies cannot both take one). Returns the ids that were not attachable.
 */
export async function attachTo(
  db: Executor,
  tenantId: string,
  owner: { type: OwnerType; id: string },
  ids: readonly string[],
  itemId: string,
): Promise<{ rows: AttachmentRow[]; refused: string[] }> {
  if (ids.length === 0) return { rows: [], refused: [] };
  const rows = (await db
    .updateTable('attachments')
    .set({ attached_to: itemId })
    .where('tenant_id', '=', tenantId)
    .where('owner_type', '=', owner.type)
    .where('owner_id', '=', owner.id)
    .where('id', 'in', [...ids])
    .where('attached_to', 'is', null)
    .returningAll()
    .execute()) as AttachmentRow[];
  const taken = new Set(rows.map((r) => r.id));
  rows.sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
  return { rows, refused: ids.filter((id) => !taken.has(id)) };
}
