/** Dashboard accounts through the public API: a tenant with an invited admin who accepted. */
import type { Harness } from './harness';

export const PASSWORD = 'correct horse battery';

export interface SignedUpAdmin {
  tenantId: string;
  userId: string;
  email: string;
  password: string;
  /** the session pair accept-invite answered */
  pair: { access_token: string; refresh_token: string; expires_in: number; token_type: string };
}

let seq = 0;
export async function signUpAdmin(h: Harness, email = `admin${++seq}@acme.example`): Promise<SignedUpAdmin> {
  const created = await h.request('POST', '/api/v1/tenants', {
    bearer: await h.superToken(),
    body: { name: 'Acme', plan: 'pro', environment: 'production', admin_email: email },
  });
  if (created.status !== 201) throw new Error(`tenant: ${created.status} ${created.text}`);
  const accepted = await h.request('POST', '/api/v1/auth/accept-invite', {
    body: { token: await mailedToken(h, email), password: PASSWORD },
  });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${accepted.text}`);
  return {
    tenantId: created.body.id,
    userId: created.body.invite.user_id,
    email,
    password: PASSWORD,
    pair: accepted.body,
  };
}

/**
 * The token of the latest mail to `to` (invite or reset): outside development no response carries
 * one, so the test reads the harness's outbox as the invitee reads their mailbox.
 */
export async function mailedToken(h: Harness, to: string): Promise<string> {
  const token = new URL(await mailedLink(h, to)).searchParams.get('token');
  if (!token) throw new Error(`the mail to ${to} carries no token`);
  return token;
}
/** The action link of the latest mail to `to`. */
export async function mailedLink(h: Harness, to: string): Promise<string> {
  const mail = (await h.outbox()).filter((m) => m.to === to.toLowerCase()).at(-1);
  if (!mail) throw new Error(`no mail to ${to}`);
  return mail.link;
}

export const login = (h: Harness, body: Record<string, unknown>, headers?: Record<string, string>) =>
  h.request('POST', '/api/v1/auth/login', { body, headers });
export const refresh = (h: Harness, refresh_token: string) =>
  h.request('POST', '/api/v1/auth/refresh', { body: { refresh_token } });
