// Dependency-free so the console's browser bundle can list the actions too.
/** Management actions recorded in the audit log (who did what to which key, webhook or team member). */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'api_key.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  // endpoint health (shared/webhooks/health.ts): the first three by `system:webhooks`
  'webhook.failing',
  'webhook.healthy',
  'webhook.disabled',
  'webhook.enabled',
  'user.invited',
  'user.updated',
  'user.removed',
  // dashboard sign-ins, by the account they were for (a failure's actor is `anonymous`)
  'user.signed_in',
  'user.sign_in_failed',
  'business_hours.created',
  'business_hours.updated',
  'business_hours.deleted',
  'sla_policy.created',
  'sla_policy.updated',
  'sla_policy.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'saved_reply.created',
  'saved_reply.updated',
  'saved_reply.deleted',
  'ticket_field.created',
  'ticket_field.updated',
  'ticket_field.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an entry's `target_id` names. */
export const AUDIT_TARGET_TYPES = [
  'api_key',
  'webhook',
  'user',
  'business_hours',
  'sla_policy',
  'team',
  'saved_reply',
  'ticket_field',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
