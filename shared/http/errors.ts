import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorField, type Logger, standaloneLogger } from '../log/logger';
import { HOSTILE_TEXT, type ValidationIssue } from './issues';
import { jsonAnswer } from './response-headers';

/** Every fixed error string, once: the spec's first, then the API's own. Clients branch on these: change none of them. */
export const Detail = {
  missingCredentials: 'Missing authentication credentials',
  invalidApiKey: 'Invalid API key',
  invalidSession: 'Invalid or expired session token',
  invalidInternalToken: 'Invalid internal service token',
  invalidEndUserToken: 'Invalid or expired end-user token',
  apiKeyNotPermitted: 'API keys are not permitted for this endpoint',
  roleRequired: (role: string) => `This action requires the ${role} role`,
  missingScope: (scope: string) => `API key missing required scope: ${scope}`,
  insufficientPermissions: (scope: string) => `Insufficient permissions: requires ${scope}`,
  /** the spec's prefix, then the catalog (as an unknown webhook event lists the valid ones) */
  unknownScopes: (scopes: readonly string[], valid: readonly string[]) =>
    `Unknown API key scope(s): ${scopes.join(', ')}. Valid scopes: ${valid.join(', ')}`,
  notFound: 'Not Found',
  resourceNotFound: (resource: string) => `${resource} not found`,
  methodNotAllowed: 'Method Not Allowed',
  bodyTooLarge: 'Request body too large',
  bodyIncomplete: 'Request body ended before it was complete',
  contentEncodingUnsupported: 'Content-Encoding is not supported: send the body uncompressed',
  // what the Node server answers for requests its HTTP parser refuses (shared/runtime/client-errors.node.ts)
  headersTooLarge: 'Request header fields too large',
  requestTimeout: 'Request timeout',
  malformedRequest: 'Malformed HTTP request',
  tooManyConnections: 'Too many open connections from this address',
  databaseUnavailable: 'Service temporarily unavailable: database unreachable',
  statementTimeout: 'Service temporarily unavailable: a database statement ran past its time limit',
  tenantShareExceeded: 'Too many concurrent requests for this tenant; retry shortly',
  internalError: 'Internal server error',
  rateLimited: 'Rate limit exceeded',

  // The refusals particular to a route, by area: also strings clients read, kept beside the spec's.
  invalidTransition: (from: string, to: string) => `Invalid status transition: ${from} -> ${to}`,
  ticketClosed: 'Ticket is closed',
  callCompleted: 'Call already completed',
  callIdTaken: 'A call with this id already exists',
  escalationIdTaken: 'An escalation with this id already exists',
  internalTokenRequired: 'Internal service token required',
  usageInternalTokenRequired: 'Internal token required',
  usageRangeBackwards: 'from must be earlier than to',
  usagePeriodNotEnded: (period: string) => `Period ${period} has not ended yet`,
  apiKeyRevoked: 'API key is revoked and cannot be rotated',
  deliveryPending: 'Delivery is still pending',
  webhookInactive: 'Webhook is inactive',
  invalidQStashSignature: 'Invalid QStash signature',
  endUserEmailTaken: 'An account with this email already exists',
  endUserTokenRequired: 'End-user token required',
  endUserGone: 'End user no longer exists',
  userEmailTaken: 'A user with this email already exists',
  contactExternalIdTakenOnRestore: 'Cannot restore: another contact now uses this external_id',
  syncNotConfigured: (provider: string) => `No sync connection configured for ${provider}`,
  kbDestinationNotConfigured: (destination: string) => `Destination ${destination} is not configured`,
  invalidLogin: 'Invalid email or password',
  severalTenants: 'This address has accounts in several tenants: send tenant_id',
  tooManySignInAttempts: 'Too many failed sign-in attempts; try again later',
  invalidRefreshToken: 'Invalid or expired refresh token',
  invalidInvite: 'Invalid or expired invite',
  invalidPasswordResetToken: 'Invalid or expired password reset token',
  invalidMagicLink: 'Invalid or expired magic link',
  lastTenantAdmin: 'A tenant keeps at least one active tenant_admin: this would leave it none',
  invitationNotFound: 'Invitation not found or expired',
  jsonRequired: 'Content-Type must be application/json',
  invalidEventType: (name: string, valid: readonly string[]) =>
    `Invalid event type: ${name}. Valid events: ${valid.join(', ')}`,
  contactEmailTaken: 'A contact with this email already exists',
  contactExternalIdTakenOnCreate: 'A contact with this external_id already exists',
  contactEmailTakenOnRestore: 'Cannot restore: another contact now uses this email',
  ticketFieldKeyTaken: 'A ticket field with this key exists',
  rangeNotSatisfiable: (size: number) => `Range not satisfiable: the file has ${size} bytes`,
  idempotencyKeyReused:
    'Idempotency-Key was already used with a different request; use a new key for a new request',
  idempotencyInProgress: 'A request with this Idempotency-Key is still being processed; retry later',
  idempotencyStoreUnavailable: 'Idempotency store temporarily unavailable; retry later',
} as const;

export type { ValidationIssue } from './issues';

/** Malformed JSON, whether Hono's parser or ours found it. */
export const JSON_INVALID: ValidationIssue[] = [
  { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' },
];

/**
 * The one error type handlers throw. `detail` is either the spec's string or,
 * for request validation, the list of issues (FastAPI's 422 shape).
 */
export class ApiError extends HTTPException {
  readonly detail: string | ValidationIssue[];
  readonly extraHeaders: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    detail: string | ValidationIssue[],
    headers: Record<string, string> = {},
  ) {
    // An expected refusal, not a bug: no stack trace (capturing one is the costliest part of a 403).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(status, { message: typeof detail === 'string' ? detail : 'Validation error' });
    Error.stackTraceLimit = limit;
    this.detail = detail;
    this.extraHeaders = headers;
  }
}

export const unauthorized = (detail: string) => new ApiError(401, detail, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (detail: string) => new ApiError(403, detail);
/** The 404 of a handler that found no `resource` (`Contact not found`); an unrouted path is shared/runtime/unrouted.ts. */
export const notFound = (resource: string) => new ApiError(404, Detail.resourceNotFound(resource));
export const badRequest = (detail: string) => new ApiError(400, detail);
export const conflict = (detail: string) => new ApiError(409, detail);
export const validationError = (issues: ValidationIssue[]) => new ApiError(422, issues);

/** Postgres errors that mean "the database is not reachable", not "the query is wrong". */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_NODE_CODES.has(code)))
    return true;
  const message = String((err as { message?: unknown }).message ?? '');
  // "timeout exceeded when trying to connect": pg's pool had no connection free within
  // connectionTimeoutMillis (every one held by other requests), as busy as unreachable to the caller
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|PGlite is closed/i.test(
    message,
  );
}

/**
 * 57014: Postgres cancelled the statement at STATEMENT_TIMEOUT_MS (or an operator cancelled it).
 * The statement's transaction is rolled back, so nothing it would have written is kept: the
 * caller may retry, like an outage and unlike a wrong query.
 */
export const isStatementTimeout = (err: unknown): boolean =>
  (err as { code?: unknown } | null)?.code === '57014';

/**
 * Constraint failures that slipped past validation are the caller's fault, not a 500:
 * the database is the last line of defence, and it answers in the spec's shape.
 */
const bodyIssue = (msg: string): ValidationIssue[] => [{ loc: ['body'], msg, type: 'value_error' }];
const CONSTRAINT_ERRORS: Record<
  string,
  { status: ContentfulStatusCode; detail: string | ValidationIssue[] }
> = {
  '23505': { status: 409, detail: 'A resource with these values already exists' },
  '23503': { status: 409, detail: 'A referenced resource does not exist' },
  // a 422 is a validation error, in its list shape even when the field is not known here
  '23514': { status: 422, detail: bodyIssue('A value is outside the allowed set') },
  '22001': { status: 422, detail: bodyIssue('A value is too long') },
  '22P02': { status: 422, detail: bodyIssue('A value has the wrong format') },
  '22003': { status: 422, detail: bodyIssue('A number is out of range') },
  // a date-time Postgres cannot hold (22008) or read (22009): shared/http/instants.ts refuses it first
  '22008': { status: 422, detail: bodyIssue('A date-time is out of range') },
  '22009': { status: 422, detail: bodyIssue('A date-time is out of range') },
  // NUL in text (22021) or jsonb (22P05): shared/http/input.ts refuses it first; this is the backstop
  '22021': { status: 422, detail: bodyIssue(HOSTILE_TEXT.nul.msg) },
  '22P05': { status: 422, detail: bodyIssue(HOSTILE_TEXT.nul.msg) },
};

/** A ticket field's key already in the tenant: the create's check and its index answer it alike. */
export const TICKET_FIELD_KEY_TAKEN: ValidationIssue = {
  loc: ['body', 'key'],
  msg: Detail.ticketFieldKeyTaken,
  type: 'value_error',
};

/**
 * A unique index a handler checks before it writes, answered as that check answers: two requests
 * that both pass the check (neither sees the other's uncommitted row) meet the index instead, and
 * the second must hear the same refusal, not the generic 409 above. Keyed by the index's name,
 * which Postgres reports as the violation's `constraint` (test/integration/unique-answers.test.ts
 * checks each name against the migrated schema). Not here: a tenant user's email, whose check
 * answers by the row it finds (a member, or an invitee who has not accepted yet).
 */
export const UNIQUE_INDEX_ERRORS: Record<
  string,
  { status: ContentfulStatusCode; detail: string | ValidationIssue[] }
> = {
  ticket_fields_tenant_id_key_key: { status: 422, detail: [TICKET_FIELD_KEY_TAKEN] },
  contacts_tenant_email_live_idx: { status: 409, detail: Detail.contactEmailTaken },
  contacts_tenant_external_live_idx: { status: 409, detail: Detail.contactExternalIdTakenOnCreate },
  end_users_tenant_email_idx: { status: 409, detail: Detail.endUserEmailTaken },
};

/** The answer of a database error the caller caused, by its index, then by its SQLSTATE. */
function constraintError(err: unknown) {
  const { code, constraint } = (err ?? {}) as { code?: unknown; constraint?: unknown };
  if (typeof code !== 'string') return undefined;
  if (code === '23505' && typeof constraint === 'string' && UNIQUE_INDEX_ERRORS[constraint])
    return UNIQUE_INDEX_ERRORS[constraint];
  return CONSTRAINT_ERRORS[code];
}

/** A failure as the API answers it: status, the spec's `{detail}` body, headers of its own. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: { detail: unknown };
  headers?: Record<string, string>;
}

/**
 * The one place that turns failures into the spec's `{detail}` answers, wherever they are caught:
 * the chain's onError (handleError) and its early refusal (shared/runtime/shortcuts.ts). An
 * unexpected one is logged with the request id the caller can quote.
 */
export function errorAnswerOf(
  err: unknown,
  request: { requestId?: string; path: string; logger?: Logger },
): ErrorAnswer {
  if (err instanceof ApiError)
    return { status: err.status, body: { detail: err.detail }, headers: err.extraHeaders };
  if (err instanceof HTTPException && err.status === 400 && err.message.startsWith('Malformed JSON')) {
    return { status: 422, body: { detail: JSON_INVALID } };
  }
  if (err instanceof HTTPException) {
    // Hono's own exceptions (e.g. body limit, malformed input): keep the status, give our shape.
    return {
      status: err.status as ContentfulStatusCode,
      body: { detail: err.message || Detail.internalError },
    };
  }
  const mapped = constraintError(err);
  if (mapped) return { status: mapped.status, body: { detail: mapped.detail } };
  if (isStatementTimeout(err)) {
    (request.logger ?? standaloneLogger).warn(
      { request_id: request.requestId, path: request.path, error: errorField(err) },
      'statement timeout',
    );
    return { status: 503, body: { detail: Detail.statementTimeout }, headers: { 'Retry-After': '1' } };
  }
  if (isDatabaseUnavailable(err)) {
    // the operator's signal that the database is out of reach (the caller is told to retry)
    (request.logger ?? standaloneLogger).warn(
      { request_id: request.requestId, path: request.path, error: errorField(err) },
      'database unavailable',
    );
    return { status: 503, body: { detail: Detail.databaseUnavailable }, headers: { 'Retry-After': '1' } };
  }
  (request.logger ?? standaloneLogger).error(
    { request_id: request.requestId, path: request.path, error: errorField(err) },
    'unhandled',
  );
  return { status: 500, body: { detail: Detail.internalError } };
}

/** onError for every app. */
export function handleError(err: Error, c: Context): Response {
  const answer = errorAnswerOf(err, {
    requestId: c.get('requestId') as string | undefined,
    path: c.req.path,
    logger: (c.get('services') as { logger?: Logger } | undefined)?.logger,
  });
  return jsonAnswer(c, answer.body, answer.status, answer.headers);
}
