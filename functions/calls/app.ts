import { Hono } from 'hono';
import { SignJWT } from 'jose';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db } from '../../shared/db/schema';
import { emitEvent, iso } from '../../shared/events/emit';
import { ApiError, conflict, notFound, validationError } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { validate } from '../../shared/http/validation';
import { newId } from '../../shared/ids';
import { createTicket } from '../../shared/tickets/tickets';
import { type CallRow, callView, escalationView, findCall, isTelephonyCall, listCalls } from './data';
import { maskDestination } from './masking';
import {
  CallIdParam,
  CompleteCallBody,
  CreateCallBody,
  EscalationBody,
  ListCallsQuery,
  VoiceWidgetTokenBody,
} from './schemas';

export const app = new Hono<AppEnv>();

export const CallDetails = {
  callCompleted: 'Call already completed',
  idTaken: 'A call with this id already exists',
  escalationIdTaken: 'An escalation with this id already exists',
} as const;

/* ---------------------------------------------------------------- public reads (calls:read) */

app.get('/api/v1/calls', validate('query', ListCallsQuery), async (c) => {
  const f = c.req.valid('query');
  const { rows, total } = await listCalls(c.get('services').db, tenantOf(c), f);
  return c.json(pageEnvelope('calls', rows.map(callView), total, f));
});

app.get('/api/v1/calls/:call_id', validate('param', CallIdParam), async (c) => {
  const { call_id } = c.req.valid('param');
  const tenantId = tenantOf(c);
  const { db } = c.get('services');
  const call = await findCall(db, tenantId, call_id);
  if (!call) throw notFound('Call');
  const escalations = await db
    .selectFrom('call_escalations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('call_id', '=', call.id)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return c.json({ ...callView(call), escalations: escalations.map(escalationView) });
});

/* ------------------------------------------- voice widget (config:write + calls:write) */

export const VOICE_WIDGET_AUDIENCE = 'voice-widget';
export const VOICE_WIDGET_ISSUER = 'support-platform';
export const VOICE_WIDGET_DEFAULT_TTL = 300;

app.post('/api/v1/voice-widget/token', validate('json', VoiceWidgetTokenBody), async (c) => {
  const body = c.req.valid('json') ?? {};
  const tenantId = tenantOf(c);
  const ttl = body.ttl_seconds ?? VOICE_WIDGET_DEFAULT_TTL;
  const sessionId = newId('voiceSession');
  const now = Math.floor(Date.now() / 1000);
  const exp = now + ttl;
  const token = await new SignJWT({
    tenant_id: tenantId,
    sid: sessionId,
    ...(body.locale ? { locale: body.locale } : {}),
    ...(body.visitor_id ? { visitor_id: body.visitor_id } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(VOICE_WIDGET_ISSUER)
    .setAudience(VOICE_WIDGET_AUDIENCE)
    .setSubject(sessionId)
    .setJti(crypto.randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(c.get('services').config.VOICE_WIDGET_SECRET));
  return c.json(
    {
      token,
      token_type: 'Bearer' as const,
      session_id: sessionId,
      tenant_id: tenantId,
      expires_in: ttl,
      expires_at: new Date(exp * 1000).toISOString(),
    },
    201,
  );
});

/* --------------------------- call lifecycle (INTERNAL_API_TOKEN, ../shared/DESIGN.md) */

function requireInternal(c: { get: (k: 'auth') => { kind: string } }) {
  // The gate only lets the internal token through on /api/internal/*; this is belt and braces.
  if (c.get('auth').kind !== 'internal') throw new ApiError(403, 'Internal service token required');
}

async function requireTenant(db: Db, tenantId: string) {
  const tenant = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw notFound('Tenant');
}

const startedPayload = (call: CallRow) => ({
  call: {
    id: call.id,
    tenant_id: call.tenant_id,
    started_at: iso(call.started_at) as string,
    direction: call.direction,
    channel: call.channel,
    caller_phone: call.caller_phone,
    telephony_call_sid: call.telephony_call_sid,
    media_room_id: call.media_room_id,
  },
});

/** Call persisted: exactly one `call.started` per call. A retried report (same id or same carrier sid) is 200 with the stored call. */
app.post('/api/internal/calls', validate('json', CreateCallBody), async (c) => {
  requireInternal(c);
  const input = c.req.valid('json');
  const { db, events } = c.get('services');
  await requireTenant(db, input.tenant_id);
  const result = await db.transaction().execute(async (trx) => {
    const now = new Date();
    const inserted = await trx
      .insertInto('calls')
      .values({
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
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) {
      await emitEvent(trx, input.tenant_id, 'call.started', startedPayload(inserted));
      return { call: inserted, created: true };
    }
    // Conflict: the same call reported again (by id, or by carrier sid), or an id of another tenant.
    let existing: CallRow | undefined;
    if (input.id) {
      existing = await trx.selectFrom('calls').selectAll().where('id', '=', input.id).executeTakeFirst();
      if (existing && existing.tenant_id !== input.tenant_id) throw conflict(CallDetails.idTaken);
    }
    if (!existing && input.telephony_call_sid)
      existing = await trx
        .selectFrom('calls')
        .selectAll()
        .where('tenant_id', '=', input.tenant_id)
        .where('telephony_call_sid', '=', input.telephony_call_sid)
        .executeTakeFirst();
    if (!existing) throw conflict(CallDetails.idTaken);
    return { call: existing, created: false };
  });
  if (result.created) events.kick();
  return c.json(callView(result.call), result.created ? 201 : 200);
});

/**
 * One escalation attempt. Recorded always; `call.escalated` (status `bridged`) only when the
 * transfer returned `transferred` on a telephony-carrier call. A retry with the same escalation_id
 * returns the recorded attempt (200) and emits nothing.
 */
app.post(
  '/api/internal/calls/:call_id/escalations',
  validate('param', CallIdParam),
  validate('json', EscalationBody),
  async (c) => {
    requireInternal(c);
    const { call_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const { db, events } = c.get('services');
    await requireTenant(db, input.tenant_id);
    const result = await db.transaction().execute(async (trx) => {
      const call = await trx
        .selectFrom('calls')
        .selectAll()
        .where('tenant_id', '=', input.tenant_id)
        .where('id', '=', call_id)
        .forUpdate()
        .executeTakeFirst();
      if (!call) throw notFound('Call');
      if (input.escalation_id) {
        const prior = await trx
          .selectFrom('call_escalations')
          .selectAll()
          .where('id', '=', input.escalation_id)
          .executeTakeFirst();
        if (prior) {
          if (prior.tenant_id !== input.tenant_id || prior.call_id !== call.id)
            throw conflict(CallDetails.escalationIdTaken);
          return { row: prior, created: false };
        }
      }
      if (call.completed_at) throw conflict(CallDetails.callCompleted);
      const transferred = input.status === 'transferred';
      const telephony = isTelephonyCall(call);
      const emit = transferred && telephony;
      const escalatedAt = input.escalated_at ?? new Date();
      const row = await trx
        .insertInto('call_escalations')
        .values({
          id: input.escalation_id ?? newId('escalation'),
          tenant_id: input.tenant_id,
          call_id: call.id,
          result: input.status,
          reason: input.reason,
          route: input.route ?? null,
          destination: input.destination ? maskDestination(input.destination) : null,
          failure: transferred && !telephony ? 'not_telephony' : transferred ? null : (input.failure ?? null),
          emitted: emit,
          escalated_at: escalatedAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (emit) {
        await trx
          .updateTable('calls')
          .set({ escalated_at: call.escalated_at ?? escalatedAt, updated_at: new Date() })
          .where('id', '=', call.id)
          .execute();
        await emitEvent(trx, input.tenant_id, 'call.escalated', {
          call: {
            id: call.id,
            tenant_id: call.tenant_id,
            escalated_at: iso(escalatedAt) as string,
            reason: input.reason,
            escalation_id: row.id,
            status: 'bridged',
            // both present: the schema requires them when status is transferred
            route: input.route!,
            destination: row.destination!,
          },
        });
      }
      return { row, created: true };
    });
    if (result.row.emitted && result.created) events.kick();
    return c.json(escalationView(result.row), result.created ? 201 : 200);
  },
);

/**
 * Completion: exactly one `call.completed` per call. The first report wins the conditional
 * UPDATE ... WHERE completed_at IS NULL; any later or concurrent report gets the stored call
 * back (200, same body) and emits nothing.
 */
app.post(
  '/api/internal/calls/:call_id/complete',
  validate('param', CallIdParam),
  validate('json', CompleteCallBody),
  async (c) => {
    requireInternal(c);
    const { call_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const { db, events } = c.get('services');
    await requireTenant(db, input.tenant_id);
    const result = await db.transaction().execute(async (trx) => {
      const call = await findCall(trx, input.tenant_id, call_id);
      if (!call) throw notFound('Call');
      if (call.completed_at) return { call, emitted: false };
      const endedAt = input.ended_at ?? new Date();
      const startedMs = new Date(call.started_at).getTime();
      if (endedAt.getTime() < startedMs)
        throw validationError([
          { loc: ['body', 'ended_at'], msg: 'ended_at is before the call started', type: 'value_error' },
        ]);
      const now = new Date();
      const claimed = await trx
        .updateTable('calls')
        .set({
          completed_at: now,
          updated_at: now,
          ended_at: endedAt,
          duration_seconds: input.duration_seconds ?? Math.round((endedAt.getTime() - startedMs) / 1000),
          outcome: input.outcome,
          recording_url: input.recording_url ?? null,
          detected_language: input.detected_language ?? null,
          summary: input.summary ?? null,
        })
        .where('tenant_id', '=', input.tenant_id)
        .where('id', '=', call.id)
        .where('completed_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!claimed) {
        // lost the race to a concurrent report: answer with what the winner stored
        return { call: (await findCall(trx, input.tenant_id, call.id))!, emitted: false };
      }
      let ticketId: string | null = claimed.ticket_id;
      if (input.ticket_id) {
        const ticket = await trx
          .selectFrom('tickets')
          .select(['id', 'call_id'])
          .where('tenant_id', '=', input.tenant_id)
          .where('id', '=', input.ticket_id)
          .executeTakeFirst();
        if (!ticket) throw notFound('Ticket');
        ticketId = ticket.id;
        if (ticket.call_id === null)
          await trx.updateTable('tickets').set({ call_id: call.id }).where('id', '=', ticket.id).execute();
      } else if (input.outcome === 'ticket_created' && !ticketId) {
        const t = input.ticket ?? {};
        const ticket = await createTicket(
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
        ticketId = ticket.id;
      }
      const final =
        ticketId !== claimed.ticket_id
          ? await trx
              .updateTable('calls')
              .set({ ticket_id: ticketId })
              .where('id', '=', call.id)
              .returningAll()
              .executeTakeFirstOrThrow()
          : claimed;
      await emitEvent(trx, input.tenant_id, 'call.completed', {
        call: {
          id: final.id,
          tenant_id: final.tenant_id,
          started_at: iso(final.started_at) as string,
          ended_at: iso(final.ended_at) as string,
          duration_seconds: final.duration_seconds as number,
          outcome: input.outcome,
          recording_url: final.recording_url,
          ticket_id: final.ticket_id,
          detected_language: final.detected_language,
          caller_phone: final.caller_phone,
          telephony_call_sid: final.telephony_call_sid,
        },
      });
      return { call: final, emitted: true };
    });
    if (result.emitted) events.kick();
    return c.json(callView(result.call));
  },
);
