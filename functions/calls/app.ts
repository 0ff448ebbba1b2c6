import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db, Executor } from '../../shared/db/schema';
import { tenantExists } from '../../shared/db/tenants';
import { emitEvent, iso } from '../../shared/events/emit';
import { RECORDING_NOT_FOUND, recordingLink, storeRecording } from '../../shared/files/recordings';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { ApiError, conflict, Detail, notFound, validationError } from '../../shared/http/errors';
import { cursorEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { newId } from '../../shared/ids';
import { createTicket } from '../../shared/tickets/tickets';
import {
  type CallRow,
  callView,
  claimCompletion,
  escalationView,
  findCall,
  findCallById,
  findCallBySid,
  findEscalation,
  findTicketLink,
  insertCall,
  insertEscalation,
  isTelephonyCall,
  listCalls,
  listEscalations,
  markEscalated,
  setCallTicket,
  setTicketCall,
} from './data';
import { maskDestination } from './masking';
import * as routes from './routes';
import type { CompleteCallInput, CreateCallInput, EscalationInput } from './schemas';

export const app = new Hono<AppEnv>();

/* ---------------------------------------------------------------- public reads (calls:read) */

register(app, routes.listCalls, async (c) => {
  const f = c.req.valid('query');
  const page = await listCalls(c.get('services').db, tenantOf(c), f);
  return c.json(cursorEnvelope('calls', page.rows.map(callView), page, f));
});

register(app, routes.getCall, async (c) => {
  const { call_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const call = await findCall(db, tenantId, call_id);
  if (!call) throw notFound('Call');
  const escalations = await listEscalations(db, tenantId, call.id);
  return c.json({ ...callView(call), escalations: escalations.map(escalationView) });
});

/** GET /api/v1/calls/{call_id}/recording: 302 to the recording's signed link (shared/files). */
register(app, routes.getRecording, async (c) => {
  const { call_id } = c.req.valid('param');
  const call = await findCall(c.get('services').db, tenantOf(c), call_id);
  if (!call) throw notFound('Call');
  const link = await recordingLink(c, call);
  if (!link) throw new ApiError(404, RECORDING_NOT_FOUND);
  return c.redirect(link, 302);
});

/** POST /api/internal/calls/{call_id}/recording: the raw audio body into storage (internal token). */
register(app, routes.uploadRecording, async (c) => {
  requireInternal(c);
  const { call_id } = c.req.valid('param');
  const call = await findCallById(c.get('services').db, call_id);
  if (!call) throw notFound('Call');
  return c.json(await storeRecording(c, call), 201);
});

/* ------------------------------------------- voice widget (config:write + calls:write) */

export const VOICE_WIDGET_AUDIENCE = 'voice-widget';
export const VOICE_WIDGET_ISSUER = 'support-platform';
export const VOICE_WIDGET_DEFAULT_TTL = 300;

register(app, routes.createVoiceWidgetToken, async (c) => {
  const body = c.req.valid('json') ?? {};
  const tenantId = tenantOf(c);
  const ttl = body.ttl_seconds ?? VOICE_WIDGET_DEFAULT_TTL;
  const sessionId = newId('voiceSession');
  const now = Math.floor(Date.now() / 1000);
  const exp = now + ttl;
  const claims = {
    tenant_id: tenantId,
    sid: sessionId,
    ...(body.locale ? { locale: body.locale } : {}),
    ...(body.visitor_id ? { visitor_id: body.visitor_id } : {}),
  };
  const { config } = c.get('services');
  const token = await signWidgetToken(config.VOICE_WIDGET_SECRET, claims, { sessionId, now, exp });
  const answer = storedJson(201, {
    token,
    token_type: 'Bearer' as const,
    session_id: sessionId,
    tenant_id: tenantId,
    expires_in: ttl,
    expires_at: new Date(exp * 1000).toISOString(),
  });
  // Minting writes nothing, so under an Idempotency-Key the work is the answer alone, recorded
  // before the token is handed out: a retry after a crash gets this session, not a second one, and
  // a request that lost its key to another holder hands out none (409). Without a key: no write.
  const minted = await answerWithWork(
    c,
    async () => answer,
    (a) => a,
  );
  return sendAnswer(c, minted.answer);
});

/** HS256, aud voice-widget, iss support-platform, sub = the session id; `now`/`exp` in epoch seconds. */
function signWidgetToken(
  secret: string,
  claims: Record<string, string>,
  session: { sessionId: string; now: number; exp: number },
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(VOICE_WIDGET_ISSUER)
    .setAudience(VOICE_WIDGET_AUDIENCE)
    .setSubject(session.sessionId)
    .setJti(crypto.randomUUID())
    .setIssuedAt(session.now)
    .setExpirationTime(session.exp)
    .sign(new TextEncoder().encode(secret));
}

/* --------------------------- call lifecycle (INTERNAL_API_TOKEN: docs/calls.md) */

function requireInternal(c: { get: (k: 'auth') => { kind: string } }) {
  // The gate only lets the internal token through on /api/internal/*; this is belt and braces.
  if (c.get('auth').kind !== 'internal') throw new ApiError(403, Detail.internalTokenRequired);
}

async function requireTenant(db: Db, tenantId: string) {
  if (!(await tenantExists(db, tenantId))) throw notFound('Tenant');
}

/** Call persisted: exactly one `call.started` per call. A retried report (same id or same carrier sid) is 200 with the stored call. */
register(app, routes.reportCall, async (c) => {
  requireInternal(c);
  const input = c.req.valid('json');
  const { db, events } = c.get('services');
  await requireTenant(db, input.tenant_id);
  const result = await db.transaction().execute((trx) => recordCall(trx, input));
  if (result.created) events.kick();
  return c.json(callView(result.call), result.created ? 201 : 200);
});

/** The call inserted with its `call.started`, or (a retry) the call reported before. */
async function recordCall(trx: Executor, input: CreateCallInput) {
  const now = new Date();
  const inserted = await insertCall(trx, {
    id: input.id ?? newId('call'),
    tenant_id: input.tenant_id,
    channel: input.channel,
    direction: input.direction,
    caller_phone: input.caller_phone ?? null,
    telephony_call_sid: input.telephony_call_sid ?? null,
    media_room_id: input.media_room_id ?? null,
    started_at: input.started_at ?? now,
    created_at: now,
    updated_at: now,
  });
  if (inserted) {
    await emitEvent(trx, input.tenant_id, 'call.started', startedPayload(inserted));
    return { call: inserted, created: true };
  }
  return { call: await reportedBefore(trx, input), created: false };
}

/** Conflict: the same call reported again (by id, or by carrier sid), or an id of another tenant (409). */
async function reportedBefore(trx: Executor, input: CreateCallInput): Promise<CallRow> {
  let existing: CallRow | undefined;
  if (input.id) {
    existing = await findCallById(trx, input.id);
    if (existing && existing.tenant_id !== input.tenant_id) throw conflict(Detail.callIdTaken);
  }
  if (!existing && input.telephony_call_sid)
    existing = await findCallBySid(trx, input.tenant_id, input.telephony_call_sid);
  if (!existing) throw conflict(Detail.callIdTaken);
  return existing;
}

const startedPayload = (call: CallRow) => ({
  call: {
    id: call.id,
    tenant_id: call.tenant_id,
    started_at: iso(call.started_at),
    direction: call.direction,
    channel: call.channel,
    caller_phone: call.caller_phone,
    telephony_call_sid: call.telephony_call_sid,
    media_room_id: call.media_room_id,
  },
});

/**
 * One escalation attempt. Recorded always; `call.escalated` (status `bridged`) only when the
 * transfer returned `transferred` on a telephony-carrier call. A retry with the same escalation_id
 * returns the recorded attempt (200) and emits nothing.
 */
register(app, routes.reportEscalation, async (c) => {
  requireInternal(c);
  const { call_id } = c.req.valid('param');
  const input = c.req.valid('json');
  const { db, events } = c.get('services');
  await requireTenant(db, input.tenant_id);
  const result = await db.transaction().execute((trx) => recordEscalation(trx, call_id, input));
  if (result.row.emitted && result.created) events.kick();
  return c.json(escalationView(result.row), result.created ? 201 : 200);
});

/** The attempt recorded (and bridged) under the call's lock, or the one recorded before under the same escalation_id. */
async function recordEscalation(trx: Executor, callId: string, input: EscalationInput) {
  const call = await findCall(trx, input.tenant_id, callId, true);
  if (!call) throw notFound('Call');
  if (input.escalation_id) {
    const prior = await findEscalation(trx, input.escalation_id);
    if (prior) {
      if (prior.tenant_id !== input.tenant_id || prior.call_id !== call.id)
        throw conflict(Detail.escalationIdTaken);
      return { row: prior, created: false };
    }
  }
  if (call.completed_at) throw conflict(Detail.callCompleted);
  const escalatedAt = input.escalated_at ?? new Date();
  const attempt = attemptOf(call, input, escalatedAt);
  const row = await insertEscalation(trx, attempt);
  if (attempt.emitted) await bridgeCall(trx, call, row, input, escalatedAt);
  return { row, created: true };
}

/** The attempt as stored: destination masked, `emitted` only for a transfer on a telephony-carrier call. */
function attemptOf(call: CallRow, input: EscalationInput, escalatedAt: Date) {
  const transferred = input.status === 'transferred';
  const telephony = isTelephonyCall(call);
  return {
    id: input.escalation_id ?? newId('escalation'),
    tenant_id: input.tenant_id,
    call_id: call.id,
    result: input.status,
    reason: input.reason,
    route: input.route ?? null,
    destination: input.destination ? maskDestination(input.destination) : null,
    failure: transferred && !telephony ? 'not_telephony' : transferred ? null : (input.failure ?? null),
    emitted: transferred && telephony,
    escalated_at: escalatedAt,
  };
}

/** A bridged transfer: the call's escalated_at, and `call.escalated` (status `bridged`). */
async function bridgeCall(
  trx: Executor,
  call: CallRow,
  row: { id: string; destination: string | null },
  input: EscalationInput,
  escalatedAt: Date,
) {
  await markEscalated(trx, call, escalatedAt);
  await emitEvent(trx, input.tenant_id, 'call.escalated', {
    call: {
      id: call.id,
      tenant_id: call.tenant_id,
      escalated_at: iso(escalatedAt),
      reason: input.reason,
      escalation_id: row.id,
      status: 'bridged',
      // both present: the schema requires them when status is transferred
      route: input.route!,
      destination: row.destination!,
    },
  });
}

/**
 * Completion: exactly one `call.completed` per call. The first report wins the conditional
 * UPDATE ... WHERE completed_at IS NULL; any later or concurrent report gets the stored call
 * back (200, same body) and emits nothing.
 */
register(app, routes.completeCall, async (c) => {
  requireInternal(c);
  const { call_id } = c.req.valid('param');
  const input = c.req.valid('json');
  const { db, events } = c.get('services');
  await requireTenant(db, input.tenant_id);
  const result = await db.transaction().execute((trx) => completeOnce(trx, call_id, input));
  if (result.emitted) events.kick();
  return c.json(callView(result.call));
});

/** Claims the completion, links or creates its ticket, emits `call.completed`; a call completed before comes back as stored. */
async function completeOnce(trx: Executor, callId: string, input: CompleteCallInput) {
  const call = await findCall(trx, input.tenant_id, callId);
  if (!call) throw notFound('Call');
  if (call.completed_at) return { call, emitted: false };
  const claimed = await claimCompletion(trx, input.tenant_id, call.id, completionOf(call, input));
  if (!claimed) {
    // lost the race to a concurrent report: answer with what the winner stored
    return { call: (await findCall(trx, input.tenant_id, call.id))!, emitted: false };
  }
  const ticketId = await ticketOfCompletion(trx, claimed, input);
  const final = ticketId !== claimed.ticket_id ? await setCallTicket(trx, claimed.id, ticketId) : claimed;
  await emitEvent(trx, input.tenant_id, 'call.completed', completedPayload(final, input));
  return { call: final, emitted: true };
}

/** The columns a completion writes; an ended_at before the call started is 422. */
function completionOf(call: CallRow, input: CompleteCallInput) {
  const endedAt = input.ended_at ?? new Date();
  const startedMs = new Date(call.started_at).getTime();
  if (endedAt.getTime() < startedMs)
    throw validationError([
      { loc: ['body', 'ended_at'], msg: 'ended_at is before the call started', type: 'value_error' },
    ]);
  const now = new Date();
  return {
    completed_at: now,
    updated_at: now,
    ended_at: endedAt,
    duration_seconds: input.duration_seconds ?? Math.round((endedAt.getTime() - startedMs) / 1000),
    outcome: input.outcome,
    recording_url: input.recording_url ?? null,
    detected_language: input.detected_language ?? null,
    summary: input.summary ?? null,
  };
}

/** The call's ticket after completion: the ticket_id given (linked), one created from the call, or the one it had. */
async function ticketOfCompletion(trx: Executor, call: CallRow, input: CompleteCallInput) {
  if (input.ticket_id) return linkTicket(trx, input.tenant_id, input.ticket_id, call.id);
  if (input.outcome === 'ticket_created' && !call.ticket_id)
    return (await ticketFromCall(trx, call, input)).id;
  return call.ticket_id;
}

/** A ticket of the tenant (404 otherwise); it names the call unless it already names one. */
async function linkTicket(trx: Executor, tenantId: string, ticketId: string, callId: string) {
  const ticket = await findTicketLink(trx, tenantId, ticketId);
  if (!ticket) throw notFound('Ticket');
  if (ticket.call_id === null) await setTicketCall(trx, ticket.id, callId);
  return ticket.id;
}

/** Outcome ticket_created without a ticket_id: a phone ticket from the call (emits ticket.created). */
function ticketFromCall(trx: Executor, call: CallRow, input: CompleteCallInput) {
  const t = input.ticket ?? {};
  return createTicket(
    trx,
    input.tenant_id,
    {
      subject: t.subject ?? `Call from ${call.caller_phone ?? 'unknown caller'}`,
      description: t.description ?? input.summary ?? '',
      priority: t.priority,
      type: t.type,
      requester_id: t.requester_id,
      requester_name: t.requester_name,
      requester_email: t.requester_email,
      tags: t.tags,
      call_id: call.id,
      source: 'phone',
    },
    { createdBy: 'internal:voice_agent', source: 'phone' },
  );
}

const completedPayload = (call: CallRow, input: CompleteCallInput) => ({
  call: {
    id: call.id,
    tenant_id: call.tenant_id,
    started_at: iso(call.started_at),
    ended_at: iso(call.ended_at) as string, // set by the completion this payload reports
    duration_seconds: call.duration_seconds as number,
    outcome: input.outcome,
    recording_url: call.recording_url,
    ticket_id: call.ticket_id,
    detected_language: call.detected_language,
    caller_phone: call.caller_phone,
    telephony_call_sid: call.telephony_call_sid,
  },
});
