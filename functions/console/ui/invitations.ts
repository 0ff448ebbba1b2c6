// Pending invitations (the team page) and the invitation preview (the accept page), through the
// typed client. The preview is asked without a session: the link's token is the credential.
import { createSupportClient } from '../../../clients/typescript/index';
import { api, type components, must } from './api';

export type Invitation = components['schemas']['Invitation'];
export type InvitePreview = components['schemas']['InvitePreview'];

/**
 * The invitation link in an invite's answer: only a development server returns it (elsewhere the
 * mail is the only carrier, and `invite` holds no token or link).
 */
export const inviteLink = (answer: { invite?: { accept_url?: string | null } | null }) =>
  answer.invite?.accept_url ?? undefined;

/** The team's invitations not yet accepted (the API's largest page: a tenant invites few at once). */
export const listInvitations = () =>
  must(api.GET('/api/v1/tenant/invitations', { params: { query: { limit: 100 } } }));

/** A new token and a new mail; the old link stops working. */
export const resendInvitation = (id: string) =>
  must(api.POST('/api/v1/tenant/invitations/{id}/resend', { params: { path: { id } } }));

export const revokeInvitation = (id: string) =>
  must(api.DELETE('/api/v1/tenant/invitations/{id}', { params: { path: { id } } }));

const signedOut = createSupportClient({ baseUrl: location.origin, retry: false, idempotency: false });

/** Which tenant and address an invitation is for (404 when it is not a pending one). */
export const previewInvitation = (token: string) =>
  must(signedOut.POST('/api/v1/auth/invite-preview', { body: { token } }));
