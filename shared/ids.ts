import { randomBase62 } from './crypto';

/**
 * Resource ids: `<prefix>_<time><random>`, e.g. `tkt_0mc1yq3k8HkR2d9TQx7pLw`. The time part
 * (base36 milliseconds, fixed width) keeps ids roughly creation-ordered for index locality.
 */
export const ID_PREFIX = {
  tenant: 'ten',
  apiKey: 'key',
  event: 'evt',
  ticket: 'tkt',
  ticketReply: 'trp',
  call: 'call',
  escalation: 'esc',
  voiceSession: 'vws',
  webhook: 'whk',
  delivery: 'dlv',
  conversation: 'cnv',
  message: 'msg',
  contact: 'ctc',
  company: 'cmp',
  article: 'art',
  syncRun: 'syn',
  export: 'exp',
  usageEvent: 'use',
  endUser: 'usr',
  requester: 'req',
  audit: 'aud',
  invoice: 'inv',
  tenantUser: 'tus',
  session: 'ses',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind): string {
  const time = Date.now().toString(36).padStart(9, '0');
  return `${ID_PREFIX[kind]}_${time}${randomBase62(14)}`;
}

/** Cheap shape check for path ids, so a malformed id is a 404 without a query. */
export const looksLikeId = (kind: IdKind, value: string) =>
  value.startsWith(`${ID_PREFIX[kind]}_`) && value.length <= 64 && /^[a-z]+_[0-9A-Za-z]+$/.test(value);
