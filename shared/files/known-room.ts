import type { TenantPlan } from '../db/schema';
import type { OwnerType } from './records';

/**
 * What this process last learnt of a tenant's files from an upload's checks: its plan, the bytes
 * its files take, and which owners exist. An upload it vouches for skips the checks statement (a
 * statement is most of a small upload's time on PGlite), because its insert re-checks the owner and
 * the cap in the same statement (`insertAttachmentWithinCap`): a stale entry (a file another process
 * stored, an owner deleted, a plan changed) costs a refusal after the bytes streamed, which takes
 * them back, never a record past the cap or under a missing owner. Only a "yes" is trusted: a
 * tenant with no room by these figures gets the checks statement, and its refusal before storage.
 */
const TTL_MS = 30_000;
const MAX_TENANTS = 10_000;
const MAX_OWNERS = 1_000;

interface Known {
  plan: TenantPlan;
  used: number;
  owners: Set<string>;
  expires: number;
}
const known = new Map<string, Known>();
const ownerKey = (type: OwnerType, id: string) => `${type}:${id}`;

/** The tenant's plan and usage when this process knows the owner exists, else null. */
export function knownRoom(
  tenantId: string,
  type: OwnerType,
  id: string,
  now = Date.now(),
): { plan: TenantPlan; used: number } | null {
  const entry = known.get(tenantId);
  if (!entry || entry.expires <= now || !entry.owners.has(ownerKey(type, id))) return null;
  return { plan: entry.plan, used: entry.used };
}

/** What an upload's checks statement read (a missing owner is not remembered). */
export function rememberChecks(
  tenantId: string,
  type: OwnerType,
  id: string,
  checks: { ownerExists: boolean; plan: TenantPlan; used: number },
  now = Date.now(),
): void {
  if (!checks.ownerExists) return;
  const entry = known.get(tenantId);
  if (entry && entry.expires > now && entry.plan === checks.plan && entry.owners.size < MAX_OWNERS) {
    entry.used = checks.used;
    entry.owners.add(ownerKey(type, id));
    return;
  }
  if (known.size >= MAX_TENANTS) known.clear();
  known.set(tenantId, {
    plan: checks.plan,
    used: checks.used,
    owners: new Set([ownerKey(type, id)]),
    expires: now + TTL_MS,
  });
}

/** A file this process recorded: its bytes count towards the tenant's usage. */
export function addUsed(tenantId: string, bytes: number): void {
  const entry = known.get(tenantId);
  if (entry) entry.used += bytes;
}

/** A file removed, or a refusal that found the figures wrong: the next upload runs the checks. */
export function forgetTenant(tenantId: string): void {
  known.delete(tenantId);
}
