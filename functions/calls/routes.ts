import { Attachment, RECORDING_BODY } from '../../shared/files/schemas';
import { ErrorBody, unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  Call,
  CallDetail,
  CallIdParam,
  CallList,
  CompleteCallBody,
  CreateCallBody,
  Escalation,
  EscalationBody,
  ListCallsQuery,
  VoiceWidgetToken,
  VoiceWidgetTokenBody,
} from './schemas';

const callNotFound = unknownIdResponse('Call', 'Unknown call, or a call of another tenant');
const tenantNotFound = unknownIdResponse('Tenant', 'Unknown tenant_id (internal routes)');

export const listCalls = defineRoute({
  operationId: 'listCalls',
  method: 'get',
  path: '/api/v1/calls',
  summary: 'List calls',
  description:
    'Newest started first unless sort=updated_at (ascending updated_at, then id; with updated_since, inclusive, for mirroring). started_after inclusive, started_before exclusive; outcome takes one value or a comma list.',
  tags: ['Calls'],
  query: ListCallsQuery,
  responses: { 200: { description: 'A page of calls', schema: CallList } },
});

export const getCall = defineRoute({
  operationId: 'getCall',
  description:
    'One call with its transcript summary, recording path and escalations. Another tenant’s call id is 404 `Call not found`.',
  method: 'get',
  path: '/api/v1/calls/{call_id}',
  summary: 'Get a call with its escalation attempts',
  tags: ['Calls'],
  params: CallIdParam,
  responses: { 200: { description: 'The call', schema: CallDetail }, 404: callNotFound },
});

export const createVoiceWidgetToken = defineRoute({
  operationId: 'createVoiceWidgetToken',
  method: 'post',
  path: '/api/v1/voice-widget/token',
  summary: 'Start a web voice-widget session',
  description:
    'Needs config:write and calls:write. Returns a short-lived HS256 JWT (aud voice-widget, iss support-platform; claims tenant_id, sid, sub = session id) for the browser widget. Body optional.',
  tags: ['Voice widget'],
  body: VoiceWidgetTokenBody,
  responses: { 201: { description: 'The session token', schema: VoiceWidgetToken } },
});

export const reportCall = defineRoute({
  operationId: 'recordCall',
  emits: ['call.started'],
  method: 'post',
  path: '/api/internal/calls',
  summary: 'Report a persisted call (internal)',
  description:
    'INTERNAL_API_TOKEN. Emits call.started once per call. A retry with the same id or the same telephony_call_sid answers 200 with the stored call and emits nothing.',
  tags: ['Internal: call lifecycle'],
  body: CreateCallBody,
  responses: {
    201: { description: 'Call recorded, call.started emitted', schema: Call },
    200: { description: 'Already recorded (retry)', schema: Call },
    404: tenantNotFound,
    409: { description: 'The id belongs to another call', schema: ErrorBody },
  },
});

export const reportEscalation = defineRoute({
  operationId: 'recordCallEscalation',
  emits: ['call.escalated'],
  method: 'post',
  path: '/api/internal/calls/{call_id}/escalations',
  summary: 'Report an escalation attempt (internal)',
  description:
    'Recorded always; call.escalated (status bridged, destination masked) only when status is transferred on a telephony-carrier call. Failed attempts and non-telephony calls emit nothing.',
  tags: ['Internal: call lifecycle'],
  params: CallIdParam,
  body: EscalationBody,
  responses: {
    201: { description: 'Attempt recorded', schema: Escalation },
    200: { description: 'Same escalation_id reported again', schema: Escalation },
    404: callNotFound,
    409: { description: 'Call already completed', schema: ErrorBody },
  },
});

export const completeCall = defineRoute({
  operationId: 'completeCall',
  emits: ['call.completed', 'ticket.created'],
  method: 'post',
  path: '/api/internal/calls/{call_id}/complete',
  summary: 'Report call completion (internal)',
  description:
    'Emits call.completed exactly once per call; repeated or concurrent reports answer 200 with the stored call. Outcome ticket_created links ticket_id, or creates a ticket from the call (ticket.created).',
  tags: ['Internal: call lifecycle'],
  params: CallIdParam,
  body: CompleteCallBody,
  responses: {
    200: { description: 'The completed call', schema: Call },
    404: { description: 'Unknown tenant, call or ticket', schema: ErrorBody },
  },
});

export const uploadRecording = defineRoute({
  operationId: 'uploadCallRecording',
  method: 'post',
  path: '/api/internal/calls/{call_id}/recording',
  summary: "Store a call's recording (internal)",
  description:
    "The recording is the raw request body under an `audio/*` Content-Type (anything else: 422), streamed into storage (docs/files.md) with the same limits as an attachment (ATTACHMENT_MAX_BYTES: 413 before anything is stored; the plan's storage cap). Replaces the call's earlier recording. The call's `recording_url` (the storage path the voice agent reports) is not changed.",
  tags: ['Internal: call lifecycle'],
  params: CallIdParam,
  rawBody: RECORDING_BODY,
  responses: {
    201: { description: 'The stored recording, with a signed link', schema: Attachment },
    404: callNotFound,
  },
});

export const getRecording = defineRoute({
  operationId: 'getCallRecording',
  method: 'get',
  path: '/api/v1/calls/{call_id}/recording',
  summary: "Download a call's recording",
  description:
    'A 302 to a signed link to the audio that needs no credential and expires after ATTACHMENT_URL_TTL_S (default 900 s; then 403). 404 `Recording not found` when the call has none; 404 `Call not found` for an unknown call or one of another tenant.',
  tags: ['Calls'],
  params: CallIdParam,
  responses: {
    302: { description: 'Found: `Location` is the signed link' },
    404: {
      description: 'Unknown call, or no recording',
      schema: ErrorBody,
      example: { detail: 'Recording not found' },
    },
  },
});

export const components = defineComponents({
  docs: {
    Call: {
      description: 'A voice call handled by the AI voice agent, from first ring to outcome.',
      fields: {
        id: 'Call id (`call_…`)',
        tenant_id: 'The tenant',
        status: '`in_progress` until the voice agent completes it, then `completed`',
        channel: 'How the caller reached you (`phone`, `sip`, `web`, `app`)',
        direction: '`inbound` or `outbound`',
        caller_phone: 'Caller number (E.164), as the voice agent reported it',
        telephony_call_sid: "The telephony provider's call id",
        media_room_id: 'Media room of a web call',
        started_at: 'When the call started (ISO 8601 UTC)',
        ended_at: 'When the call ended',
        duration_seconds: 'Length of the call',
        outcome:
          'How it ended: `ticket_created`, `status_checked`, `kb_article`, `escalated`, `hung_up` or `error`',
        recording_url: 'Recording, when recording is enabled',
        ticket_id: 'The ticket created from or linked to the call',
        detected_language: 'Language the agent detected (BCP 47)',
        summary: "The voice agent's summary of the call",
        escalated_at: 'When it was last escalated to a human',
        completed_at: 'When the voice agent completed it',
        created_at: 'When it was recorded',
        updated_at: 'Last change',
      },
    },
    Escalation: {
      description: 'A hand-off of a call to a human (transferred or failed).',
    },
  },
  output: { Call, CallDetail, CallList, Escalation, VoiceWidgetToken },
  input: {
    CallCreate: CreateCallBody,
    CallComplete: CompleteCallBody,
    EscalationCreate: EscalationBody,
    VoiceWidgetTokenRequest: VoiceWidgetTokenBody,
  },
});
