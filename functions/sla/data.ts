import type { Selectable } from 'kysely';
import type { Executor } from '../../shared/db/schema';
import type { BusinessHoursTable, SlaPoliciesTable } from '../../shared/db/tables/sla';
import { iso } from '../../shared/events/emit';
import { looksLikeId, newId } from '../../shared/ids';

type HoursRow = Selectable<BusinessHoursTable>;
type PolicyRow = Selectable<SlaPoliciesTable>;

export const hoursView = (r: HoursRow) => ({
  id: r.id,
  name: r.name,
  timezone: r.timezone,
  intervals: r.intervals,
  holidays: r.holidays,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const policyView = (r: PolicyRow) => ({
  id: r.id,
  name: r.name,
  position: r.position,
  business_hours_id: r.business_hours_id,
  conditions: r.conditions,
  first_response_minutes: r.first_response_minutes,
  resolution_minutes: r.resolution_minutes,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export const listHours = (db: Executor, tenantId: string) =>
  db
    .selectFrom('business_hours')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const countHours = async (db: Executor, tenantId: string) =>
  Number(
    (
      await db
        .selectFrom('business_hours')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The tenant's hours (locked for a write when asked); undefined for an unknown or malformed id. */
export async function findHours(db: Executor, tenantId: string, id: string, forUpdate = false) {
  if (!looksLikeId('businessHours', id)) return undefined;
  let q = db.selectFrom('business_hours').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export const insertHours = (
  db: Executor,
  tenantId: string,
  v: Pick<HoursRow, 'name' | 'timezone' | 'intervals' | 'holidays'>,
) =>
  db
    .insertInto('business_hours')
    .values({
      id: newId('businessHours'),
      tenant_id: tenantId,
      name: v.name,
      timezone: v.timezone,
      intervals: JSON.stringify(v.intervals),
      holidays: JSON.stringify(v.holidays),
      updated_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export const updateHours = (
  db: Executor,
  tenantId: string,
  id: string,
  v: Partial<Pick<HoursRow, 'name' | 'timezone' | 'intervals' | 'holidays'>>,
) =>
  db
    .updateTable('business_hours')
    .set({
      ...(v.name !== undefined ? { name: v.name } : {}),
      ...(v.timezone !== undefined ? { timezone: v.timezone } : {}),
      ...(v.intervals !== undefined ? { intervals: JSON.stringify(v.intervals) } : {}),
      ...(v.holidays !== undefined ? { holidays: JSON.stringify(v.holidays) } : {}),
      updated_at: new Date(),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();

export const hoursInUse = async (db: Executor, tenantId: string, id: string) =>
  (await db
    .selectFrom('sla_policies')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('business_hours_id', '=', id)
    .limit(1)
    .executeTakeFirst()) !== undefined;

export const deleteHours = (db: Executor, tenantId: string, id: string) =>
  db.deleteFrom('business_hours').where('tenant_id', '=', tenantId).where('id', '=', id).execute();

export const listPolicies = (db: Executor, tenantId: string) =>
  db
    .selectFrom('sla_policies')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** How many policies the tenant has, and the position after the last. */
export async function policyTally(db: Executor, tenantId: string) {
  const row = await db
    .selectFrom('sla_policies')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.max('position').as('last')])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), next: row.last === null ? 0 : Number(row.last) + 1 };
}

export async function findPolicy(db: Executor, tenantId: string, id: string, forUpdate = false) {
  if (!looksLikeId('slaPolicy', id)) return undefined;
  let q = db.selectFrom('sla_policies').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

type PolicyFields = Pick<
  PolicyRow,
  'name' | 'position' | 'business_hours_id' | 'conditions' | 'first_response_minutes' | 'resolution_minutes'
>;

export const insertPolicy = (db: Executor, tenantId: string, v: PolicyFields) =>
  db
    .insertInto('sla_policies')
    .values({
      id: newId('slaPolicy'),
      tenant_id: tenantId,
      ...v,
      conditions: JSON.stringify(v.conditions),
      updated_at: new Date(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export const updatePolicy = (db: Executor, tenantId: string, id: string, v: Partial<PolicyFields>) => {
  const { conditions, ...rest } = v;
  const set = Object.fromEntries(Object.entries(rest).filter(([, x]) => x !== undefined));
  return db
    .updateTable('sla_policies')
    .set({
      ...set,
      ...(conditions !== undefined ? { conditions: JSON.stringify(conditions) } : {}),
      updated_at: new Date(),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
};

export const deletePolicy = (db: Executor, tenantId: string, id: string) =>
  db.deleteFrom('sla_policies').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
