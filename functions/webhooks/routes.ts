import * as z from 'zod';
import { ErrorBody, unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryAttemptDetail,
  DeliveryDetail,
  DeliveryIdParam,
  DeliveryLogEntry,
  DeliveryLogPage,
  DeliveryRecord,
  DeliveryRecordList,
  EventTypes,
  QStashCallbackBody,
  QStashProbeBody,
  RecoverBody,
  SecretRotated,
  TestEventBody,
  TestEventQueued,
  UpdateWebhookBody,
  WebhookCreated,
  WebhookDetail,
  WebhookHealth,
  WebhookIdParam,
  WebhookList,
  WebhookListItem,
} from './schemas';

const QStashCallbackResult = z.object({
  delivery_id: z.string(),
  attempt: z.number().int(),
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  skipped: z.enum(['done', 'held', 'not_found', 'paced']).optional(),
});
const QStashProbeResult = z.object({
  webhook_id: z.string().describe('The endpoint'),
  probed: z.boolean().describe('false: no probe was due (sent already, or the endpoint is healthy again)'),
});
const tags = ['Webhooks'];
/** the dashboard-only operations (the console's): a tag of their own, one surface per tag */
const dashboardTags = ['Webhooks (dashboard)'];
// the answers every route on one subscription may give
const webhookNotFound = unknownIdResponse('Webhook', 'Unknown webhook, or a webhook of another tenant');
const inactive = { description: '`Webhook is inactive`', schema: ErrorBody };

export const createWebhook = defineRoute({
  operationId: 'createWebhook',
  method: 'post',
  path: '/api/v1/webhooks',
  access: { role: 'tenant_admin' },
  summary: 'Create a webhook subscription',
  description:
    'Only `url`, `events` and an optional `description` are read (a supplied `secret` is ignored). The URL must start with https:// and its host must resolve to public addresses only. The signing secret is generated and returned only in this response. See docs/webhooks.md.',
  tags,
  body: CreateWebhookBody,
  responses: {
    201: { description: 'Created; `secret` is shown only here', schema: WebhookCreated },
    400: {
      description:
        'Non-https URL (`Webhook URL must start with https://`), unknown event (`Invalid event type: <name>. Valid events: ...`), host that does not resolve (`Webhook URL host could not be resolved`) or resolves to a private/reserved address (`Webhook URL host resolves to a private or reserved address`)',
      schema: ErrorBody,
    },
  },
});

export const listWebhooks = defineRoute({
  operationId: 'listWebhooks',
  method: 'get',
  path: '/api/v1/webhooks',
  summary: 'List webhook subscriptions',
  description: 'The full list, oldest first; never the secret; no pagination fields.',
  tags,
  responses: { 200: { description: 'Every subscription of the tenant', schema: WebhookList } },
});

export const getWebhook = defineRoute({
  operationId: 'getWebhook',
  method: 'get',
  path: '/api/v1/webhooks/{id}',
  summary: 'Get a webhook subscription',
  description:
    'The fields of the list plus `updated_at`, as the create response has them, and `health` (state, since when, how many failed deliveries wait to be re-sent), `rate_limit` and `auto_recover` (webhooks:read); never the secret. See docs/webhooks.md, "Endpoint health".',
  tags,
  params: WebhookIdParam,
  responses: {
    200: { description: 'The subscription with its health', schema: WebhookDetail },
    404: webhookNotFound,
  },
});

export const deleteWebhook = defineRoute({
  operationId: 'deleteWebhook',
  method: 'delete',
  path: '/api/v1/webhooks/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Delete a webhook subscription',
  description:
    'Needs webhooks:write and webhooks:delete. Pending deliveries are closed as failed; the delivery log is kept.',
  tags,
  params: WebhookIdParam,
  responses: {
    204: { description: 'Deleted' },
    404: webhookNotFound,
  },
});

export const listDeliveries = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/api/v1/webhooks/{id}/deliveries',
  summary: 'Delivery log of a webhook',
  description:
    "Most recent first (created_at, then id); limit default 50, range 1-200. Older pages: pass the page's `next_cursor` as `cursor` (null on the last page; a cursor of another webhook or list, or a malformed one, is a 422 on `cursor`), or the last delivery id read as `before` (an id that is not one of this webhook's deliveries is a 422). Either way a page costs the same at any depth and deliveries queued meanwhile do not shift it; `cursor` and `before` together are a 422. Neither the payload nor the response body is exposed.",
  tags,
  params: WebhookIdParam,
  query: DeliveriesQuery,
  responses: {
    200: { description: 'Deliveries', schema: DeliveryLogPage },
    404: webhookNotFound,
  },
});

export const getDelivery = defineRoute({
  operationId: 'getWebhookDelivery',
  method: 'get',
  path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}',
  summary: 'A delivery with every attempt',
  description:
    "The delivery log's entry plus `history`: each attempt made, oldest first, with when it ended, the receiver's status, how long it took, why it failed, the `request` exactly as sent (headers and body) and the `response` (status, headers, the first 4,096 bytes of the body, `body_truncated`; null when no answer came). Request and response are kept WEBHOOK_ATTEMPT_RETENTION_DAYS days (default 30), then null. A redelivery is a new delivery with its own history.",
  tags,
  params: DeliveryIdParam,
  responses: {
    200: { description: 'The delivery and its attempts', schema: DeliveryDetail },
    404: { description: '`Webhook not found` or `Delivery not found`', schema: ErrorBody },
  },
});

export const redeliver = defineRoute({
  operationId: 'redeliverWebhookDelivery',
  method: 'post',
  path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
  access: { role: 'tenant_admin' },
  summary: 'Re-send a delivered or failed delivery',
  description:
    'Creates a new delivery (new id, fresh X-Webhook-Timestamp and signature, same body data) that appears in the delivery log.',
  tags,
  params: DeliveryIdParam,
  responses: {
    202: { description: 'The new delivery, pending', schema: DeliveryRecord },
    404: { description: '`Webhook not found` or `Delivery not found`', schema: ErrorBody },
    409: { description: '`Delivery is still pending` or `Webhook is inactive`', schema: ErrorBody },
  },
});

export const recover = defineRoute({
  operationId: 'recoverWebhook',
  method: 'post',
  path: '/api/v1/webhooks/{id}/recover',
  access: { role: 'tenant_admin' },
  summary: 'Re-send every failed delivery since a time',
  description:
    'Every failed delivery created at or after `since` that has not been re-sent already (at most 1000 per call) is re-sent as a new delivery: a delivery already re-queued (by redeliver or an earlier recover), pending or done, is not re-sent again; a failed re-delivery, the latest of its line, is. At most one recover a minute per endpoint: beyond that 429 with Retry-After, and nothing is sent; when that limit cannot be checked (its shared store down or slow) 503 with Retry-After, and nothing is sent.',
  tags,
  params: WebhookIdParam,
  body: RecoverBody,
  responses: {
    202: { description: 'The new deliveries, pending', schema: DeliveryRecordList },
    404: webhookNotFound,
    409: inactive,
    429: {
      description:
        'A recover of this endpoint ran less than a minute ago (Retry-After in seconds); nothing was sent',
      schema: ErrorBody,
      example: { detail: 'At most one recover a minute per endpoint' },
    },
  },
});

export const updateWebhook = defineRoute({
  operationId: 'updateWebhook',
  method: 'patch',
  path: '/api/v2/webhooks/{id}',
  access: { role: 'tenant_admin' },
  summary: 'Change a webhook (dashboard)',
  description:
    'is_active, url, events, description, rate_limit (deliveries a second, 1-10000, or null) and/or auto_recover; the same validation as creation. `{"is_active": true}` on a disabled endpoint enables it and re-sends every delivery that failed since it started failing (unless auto_recover is false). Dashboard session, tenant_admin or higher.',
  tags: dashboardTags,
  params: WebhookIdParam,
  body: UpdateWebhookBody,
  responses: {
    200: { description: 'The updated subscription with its health (no secret)', schema: WebhookDetail },
    400: { description: 'Same URL and event errors as creation', schema: ErrorBody },
    404: webhookNotFound,
  },
});

export const sendTestEvent = defineRoute({
  operationId: 'sendWebhookTestEvent',
  method: 'post',
  path: '/api/v2/webhooks/{id}/test',
  access: { role: 'tenant_admin' },
  summary: 'Send a test event (dashboard)',
  description:
    "Sends the catalog event's documented example `data` in full, signed like any delivery and marked as a test (header `X-Webhook-Test: true` on every attempt; `test: true` in the delivery log), to this endpoint only. It appears in the endpoint's delivery log (with every attempt's request and response) and creates no ticket or other record. At most 10 test events a minute per endpoint: beyond that 429 with Retry-After, and nothing is sent; when that limit cannot be checked (its shared store down or slow) 503 with Retry-After, and nothing is sent.",
  tags: dashboardTags,
  params: WebhookIdParam,
  body: TestEventBody,
  responses: {
    202: { description: 'The test delivery, queued', schema: TestEventQueued },
    404: webhookNotFound,
    409: inactive,
    429: {
      description:
        '10 test events were sent to this endpoint this minute (Retry-After in seconds); nothing was sent',
      schema: ErrorBody,
      example: { detail: 'At most 10 test events a minute per endpoint' },
    },
  },
});

export const rotateSecret = defineRoute({
  operationId: 'rotateWebhookSecret',
  method: 'post',
  path: '/api/v2/webhooks/{id}/rotate-secret',
  access: { role: 'tenant_admin' },
  summary: "Rotate a webhook's signing secret (dashboard)",
  description:
    'Replaces the signing secret and returns the new one, shown only here; every attempt from now on is signed with it (`X-Webhook-Signature`), and for WEBHOOK_ROTATION_OVERLAP_S (a day by default) `webhook-signature` carries the old secret\'s signature too, so receivers can switch at their pace (docs/webhooks.md, "Rotating the secret"). Audited as `webhook.secret_rotated`.',
  tags: dashboardTags,
  params: WebhookIdParam,
  responses: {
    200: { description: 'The new secret', schema: SecretRotated },
    404: webhookNotFound,
  },
});

export const listEventTypes = defineRoute({
  operationId: 'listWebhookEventTypes',
  description:
    'The event catalog, grouped as the spec lists it, and the wildcard `*`: the names a subscription may list (any other name is refused with 400).',
  method: 'get',
  path: '/api/v2/webhooks/event-types',
  summary: 'The webhook event catalog (dashboard)',
  tags: dashboardTags,
  responses: { 200: { description: 'Catalog names, by group, and the `*` wildcard', schema: EventTypes } },
});

export const qstashCallback = defineRoute({
  operationId: 'receiveQStashCallback',
  method: 'post',
  path: '/api/internal/webhooks/qstash',
  summary: 'QStash retry callback (internal)',
  description:
    'Called by QStash at the due time of a scheduled retry; verified with the `Upstash-Signature` header (QStash signing keys), not with a bearer token. Sends that attempt unless it was already made or is held by another process.',
  tags: ['Internal'],
  body: QStashCallbackBody,
  responses: {
    200: {
      description: 'The attempt was made (`status`), or skipped (`skipped`: done, held, not_found)',
      schema: QStashCallbackResult,
    },
    401: { description: '`Invalid QStash signature`', schema: ErrorBody },
    503: { description: 'Not due yet; QStash retries', schema: ErrorBody },
  },
});

export const qstashProbeCallback = defineRoute({
  operationId: 'receiveQStashProbeCallback',
  method: 'post',
  path: '/api/internal/webhooks/qstash/probe',
  summary: 'QStash probe callback (internal)',
  description:
    "Called by QStash when a failing endpoint's next probe is due; verified with the `Upstash-Signature` header like the retry callback. Re-sends the endpoint's oldest failed delivery as a probe (or disables the endpoint once WEBHOOK_DISABLE_AFTER_S has passed) unless another process did already, then schedules the next probe.",
  tags: ['Internal'],
  body: QStashProbeBody,
  responses: {
    200: { description: 'Probed, or nothing was due (`probed: false`)', schema: QStashProbeResult },
    401: { description: '`Invalid QStash signature`', schema: ErrorBody },
    503: { description: 'The probe is not due yet; QStash retries', schema: ErrorBody },
  },
});

export const components = defineComponents({
  docs: {
    Webhook: {
      description:
        'A subscription: where to POST which events. The secret is never shown again after creation.',
      fields: {
        id: 'Subscription id (`whk_…`)',
        url: 'HTTPS endpoint that receives the deliveries',
        description: 'What the endpoint is for (at most 500 characters); null when not given',
        events: 'Event names it receives (`*` for all)',
        is_active: '`false`: nothing is delivered (PATCH /api/v2/webhooks/{id} to resume)',
        created_at: 'When it was created (ISO 8601 UTC)',
      },
    },
    WebhookCreated: {
      description: 'The new subscription, with its signing secret: store it now, it is shown only here.',
      fields: {
        id: 'Subscription id (`whk_…`)',
        url: 'HTTPS endpoint that receives the deliveries',
        description: 'What the endpoint is for (at most 500 characters); null when not given',
        events: 'Event names it receives (`*` for all)',
        is_active: '`true`: deliveries start with the next event',
        created_at: 'When it was created (ISO 8601 UTC)',
        updated_at: 'Last change',
        secret: 'Signing secret (`whsec_…`): the HMAC-SHA256 key of X-Webhook-Signature',
      },
    },
    WebhookDeliveryRecord: {
      description:
        "One delivery read by itself: the log entry and whether it is a test (the log's list keeps the spec's fields).",
      fields: {
        test: "`true` for a test delivery (POST /api/v2/webhooks/{id}/test, or a redelivery of one): an event's documented example, sent with `X-Webhook-Test: true`; `false` for a real event",
      },
    },
    WebhookDeliveryRecordList: {
      description: 'The deliveries a recovery queued, each read by itself.',
      fields: { deliveries: 'The new deliveries, pending' },
    },
    WebhookDeliveryDetail: {
      description: 'A delivery read by itself with `history`: every attempt made, oldest first.',
      fields: { history: 'The attempts made so far, oldest first (at most 5)' },
    },
    WebhookDeliveryAttempt: {
      description: 'One attempt of a delivery: one signed POST to the endpoint.',
      fields: {
        attempt: 'Its number: 1 for the first attempt, up to 5',
        request: 'What was sent: headers and the exact body; null when nothing was sent or once cleared',
        response:
          "The receiver's answer: status, headers, first 4,096 bytes of the body; null when none came",
        attempted_at: 'When it ended (response, error or timeout)',
        response_status: "The receiver's HTTP status; null when there was no response",
        duration_ms: 'How long it took',
        error: 'Why it failed: `HTTP 500`, a timeout, a refused destination; null when delivered',
      },
    },
    WebhookDelivery: {
      description: 'One event sent (or being sent) to one subscription, with its attempts.',
      fields: {
        id: 'Delivery id (`dlv_…`), sent as X-Webhook-Delivery-Id on every attempt',
        event_type: 'The event delivered',
        status: '`pending` (retries left), `delivered` (2xx) or `failed` (gave up)',
        attempts: 'Attempts made so far',
        last_attempt_at: 'When the last attempt was made',
        next_attempt_at: 'When the next retry is due (pending only)',
        response_status: "The receiver's HTTP status on the last attempt",
        duration_ms: 'How long the last attempt took',
        error: 'Why the last attempt failed (timeout, connection refused, …)',
        created_at: 'When the event was queued for this subscription',
      },
    },
  },
  output: {
    Webhook: WebhookListItem,
    WebhookList,
    WebhookCreated,
    WebhookDetail,
    WebhookHealth,
    WebhookDelivery: DeliveryLogEntry,
    WebhookDeliveryRecord: DeliveryRecord,
    WebhookDeliveryRecordList: DeliveryRecordList,
    WebhookDeliveryLogPage: DeliveryLogPage,
    WebhookDeliveryDetail: DeliveryDetail,
    WebhookDeliveryAttempt: DeliveryAttemptDetail,
    WebhookTestEventQueued: TestEventQueued,
    WebhookSecretRotated: SecretRotated,
    WebhookEventTypes: EventTypes,
    QStashCallbackResult,
    QStashProbeResult,
  },
  input: {
    WebhookCreate: CreateWebhookBody,
    WebhookUpdate: UpdateWebhookBody,
    WebhookRecover: RecoverBody,
    WebhookTestEvent: TestEventBody,
    QStashCallback: QStashCallbackBody,
    QStashProbe: QStashProbeBody,
  },
});
