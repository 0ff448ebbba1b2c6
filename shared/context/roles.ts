// Dashboard roles: a table with no dependencies, read by the server (jwt.ts, the role guard) and by
// the console's browser bundle (functions/console/ui/access.ts) alike.

/** Dashboard roles, lowest first: a role satisfies every role at or below it. */
export const ROLES = ['agent', 'tenant_admin', 'super_admin'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value);
export const roleAtLeast = (role: Role, needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed);
