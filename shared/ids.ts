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
  attachment: 'att',
  businessHours: 'bhr',
  slaPolicy: 'sla',
  team: 'team',
  savedReply: 'srp',
  ticketField: 'tfd',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/**
 * The time part never repeats within a process: two ids made in the same millisecond get
 * consecutive values (a burst runs the clock a few ms ahead, then it waits for the wall clock).
 * So ids of one process sort in creation order, which breaks ties where timestamps do not: events
 * of one transaction on PGlite, whose clock_timestamp() can repeat, keep their emission order.
 */
let lastMillis = 0;
export function newId(kind: IdKind): string {
  lastMillis = Math.max(Date.now(), lastMillis + 1);
  const time = lastMillis.toString(36).padStart(9, '0');
  return `${ID_PREFIX[kind]}_${time}${randomBase62(14)}`;
}

/**
 * X-Request-Id of a request that came without one (and its access-log line): `rid_` (`req_` is the
 * requester prefix), a tag drawn once per process or isolate from the CSPRNG, then a counter. Ids
 * of one process never repeat and the tags of two processes practically never meet; it costs one
 * integer-to-string per request (this runs on every request, refusals included). The tag is drawn
 * on first use: Workers forbid random values at global scope.
 */
let processTag: string | undefined;
let requestCount = 0;
export function newRequestId(): string {
  processTag ??= randomBase62(12);
  requestCount += 1;
  return `rid_${processTag}${requestCount.toString(36)}`;
}

/**
 * A caller's X-Request-Id that is kept (docs/architecture.md: "the caller's, up to 128 characters, else a new
 * one"): 1-128 printable ASCII characters, so a log line stays bounded and the echo is the exact
 * bytes sent. A longer or other id gets a new one rather than a cut copy the caller never sent.
 */
const KEPT_REQUEST_ID = /^[\x20-\x7e]{1,128}$/;

/** A request's id: the caller's X-Request-Id when it is one to keep, else a new one. */
export const requestIdFrom = (sent: string | undefined): string =>
  sent !== undefined && KEPT_REQUEST_ID.test(sent) ? sent : newRequestId();

/** Cheap shape check for path ids, so a malformed id is a 404 without a query. */
export const looksLikeId = (kind: IdKind, value: string) =>
  value.startsWith(`${ID_PREFIX[kind]}_`) && value.length <= 64 && /^[a-z]+_[0-9A-Za-z]+$/.test(value);
