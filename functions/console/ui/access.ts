import { isRole, roleAtLeast } from '../../../shared/context/roles';
import { currentIdentity, onSessionChange } from './session';

/**
 * What each console action needs, as the API itself decides it (roleGuard and requireRole in
 * functions/api-keys, webhooks, directory and audit): the console offers no button whose only
 * outcome is a 403, and says why instead. One table; pages ask `allowed(action)`.
 */
export const ACTIONS = {
  keys: { role: 'tenant_admin', why: 'Only admins can see and manage API keys.' },
  'webhooks.manage': {
    role: 'tenant_admin',
    why: 'Only admins can add, pause, delete or redeliver webhooks; you can read the delivery log.',
  },
  'team.manage': {
    role: 'tenant_admin',
    why: 'Only admins can invite people, change roles or remove members.',
  },
  audit: { role: 'tenant_admin', why: 'Only admins can read the audit log.' },
  'helpdesk.manage': {
    role: 'tenant_admin',
    why: 'Only admins can add, change or delete teams, saved replies and ticket fields; you can read them.',
  },
  'sla.manage': {
    role: 'tenant_admin',
    why: 'Only admins can add, change or delete business hours and SLA policies; you can read them.',
  },
} as const;

export type Action = keyof typeof ACTIONS;

/**
 * The role of whoever the console shows. While an ended session's sign-in dialog is open the page
 * stays as it was (with its unsaved input), so the role is the last signed-in one, not none.
 */
let shownRole = currentIdentity()?.role ?? '';
onSessionChange((who) => {
  if (who) shownRole = who.role;
});

export function allowed(action: Action): boolean {
  const role = currentIdentity()?.role ?? shownRole;
  return isRole(role) && roleAtLeast(role, ACTIONS[action].role);
}

export const whyNot = (action: Action) => ACTIONS[action].why;

/** Where the console opens for this role: the first page it can use (an agent cannot use API keys). */
export const homePage = (): { path: string; label: string } =>
  allowed('keys') ? { path: '/keys', label: 'API keys' } : { path: '/webhooks', label: 'Webhooks' };
