// Dependency-free so the console's browser bundle can list the actions too.
/** Management actions recorded in the audit log (who did what to which key or webhook). */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'api_key.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
