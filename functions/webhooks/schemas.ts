import * as z from 'zod';
import { ALL_EVENTS, EVENT_GROUPS, EVENT_TYPES } from '../../shared/events/catalog';
import { isoDateTime } from '../../shared/http/instants';
import { cursorConflict, cursorPageFields, cursorParam, queryInt } from '../../shared/http/pagination';

/**
 * POST /api/v1/webhooks body. Only `url` and `events` are read; other fields (a supplied `secret`
 * included) are ignored, not refused (spec: "Only these two fields are accepted; a supplied secret
 * is ignored"). Event names are checked by the handler so the answer is the spec's 400 string.
 */
export const CreateWebhookBody = z.object({
  url: z.string().min(1).max(2048).meta({
    description: 'Must start with https://; the host must resolve to public addresses only',
    pattern: '^https://',
  }),
  events: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(100)
    .describe(`Catalog event names, or "${ALL_EVENTS}" for every event`),
  description: z
    .string()
    .max(500)
    .nullable()
    .optional()
    .describe('What the endpoint is for (at most 500 characters)'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

/** PATCH /api/v2/webhooks/{id} (dashboard): any of is_active, url, events, description; at least one. */
export const UpdateWebhookBody = z
  .strictObject({
    is_active: z.boolean().optional(),
    url: CreateWebhookBody.shape.url.optional(),
    events: CreateWebhookBody.shape.events.optional(),
    description: CreateWebhookBody.shape.description.describe('What the endpoint is for; null clears it'),
    rate_limit: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .nullable()
      .optional()
      .describe(
        'Deliveries a second this endpoint receives at most (1-10000), across every process; null removes the limit. Waiting for the pace is not an attempt.',
      ),
    auto_recover: z
      .boolean()
      .optional()
      .describe(
        'false: no probes while failing and no automatic re-send when it answers again (default true)',
      ),
  })
  .refine(
    (b) =>
      b.is_active !== undefined ||
      b.url !== undefined ||
      b.events !== undefined ||
      b.description !== undefined ||
      b.rate_limit !== undefined ||
      b.auto_recover !== undefined,
    { message: 'At least one of is_active, url, events, description, rate_limit, auto_recover is required' },
  )
  .meta({ minProperties: 1 });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

const webhookId = z.string().min(1).max(64).describe('The webhook subscription id (`whk_…`)');
export const WebhookIdParam = z.object({ id: webhookId });
export const DeliveryIdParam = z.object({
  id: webhookId,
  delivery_id: z
    .string()
    .min(1)
    .max(64)
    .describe("The delivery id (`dlv_…`, also sent as X-Webhook-Delivery-Id), one of this webhook's log"),
});

/**
 * limit default 50, range 1-200 (422 outside); no offset (the log returns no pagination fields):
 * older pages by `cursor` (the previous page's `next_cursor`, bound to this webhook, checked by the
 * handler since the webhook is a path parameter) or by `before` = the last delivery id of the page
 * read. Both say where the page starts, so both at once is a 422.
 */
export const DeliveriesQuery = z
  .object({
    limit: queryInt(z.number().int().min(1).max(200), 50).describe(
      'How many deliveries to return, newest first: 1-200 (default 50)',
    ),
    before: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'A delivery id of this webhook: only deliveries older than it (pass the last id of the page read). Not with `cursor`.',
      ),
    cursor: cursorParam.describe(
      "The `next_cursor` of the previous page of this webhook's log: the deliveries older than that page, at the same cost at any depth. Not with `before`.",
    ),
  })
  .check((ctx) => {
    if (ctx.value.cursor !== undefined && ctx.value.before !== undefined)
      ctx.issues.push({
        code: 'custom',
        message: cursorConflict('before'),
        path: ['before'],
        input: ctx.value.before,
      });
  });

/** The list name a delivery-log cursor is bound to (with the webhook id). */
export const DELIVERIES = 'deliveries';

export const RecoverBody = z.strictObject({
  since: isoDateTime.describe('Re-send every failed delivery created at or after this time'),
});

/** QStash probe callback body (shared/webhooks/qstash.ts publishes it while an endpoint fails). */
export const QStashProbeBody = z.object({
  webhook_id: z.string().min(1).max(64).describe('The failing endpoint'),
  probe: z.number().int().min(1).max(1_000_000).describe('Which probe of this outage (1 for the first)'),
});

/** QStash callback body (shared/webhooks/qstash.ts publishes it). */
export const QStashCallbackBody = z.object({
  delivery_id: z.string().min(1).max(64),
  attempt: z.number().int().min(1).max(5),
});

const Timestamp = z.string().describe('ISO 8601 UTC');

export const WebhookListItem = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  is_active: z.boolean(),
  created_at: Timestamp,
});
export const WebhookCreated = WebhookListItem.extend({
  secret: z.string().describe('Signing secret: shown only in this response'),
  updated_at: Timestamp,
});
export const WebhookRecord = WebhookListItem.extend({ updated_at: Timestamp });
export const WebhookHealth = z
  .object({
    state: z
      .enum(['healthy', 'failing', 'disabled'])
      .describe(
        '`failing`: a delivery ended failed since the last success (probes run, re-sends follow the first success); `disabled`: failing for WEBHOOK_DISABLE_AFTER_S, nothing is sent until enabled',
      ),
    failing_since: Timestamp.nullable().describe(
      'Since when it fails (its first failure after the last success); null when not failing',
    ),
    last_success_at: Timestamp.nullable().describe(
      'The last successful delivery (to within a second); null before any',
    ),
    failed_deliveries: z
      .number()
      .int()
      .describe('Deliveries that failed since failing_since and wait to be re-sent (0 when healthy)'),
    disabled_at: Timestamp.nullable().describe('When it was disabled; null unless disabled'),
  })
  .describe('The endpoint\'s health (docs/webhooks.md, "Endpoint health")');
export const WebhookDetail = WebhookRecord.extend({
  rate_limit: z.number().int().nullable().describe('Deliveries a second at most (1-10000); null: no limit'),
  auto_recover: z.boolean().describe('Probes while failing and re-sends on recovery (default true)'),
  health: WebhookHealth,
});
export const WebhookList = z.object({ webhooks: z.array(WebhookListItem) });

export const DeliveryLogEntry = z.object({
  id: z.string().describe('Also sent as X-Webhook-Delivery-Id on every attempt of this delivery'),
  event_type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_attempt_at: Timestamp.nullable(),
  next_attempt_at: Timestamp.nullable(),
  response_status: z.number().int().nullable().describe('HTTP status returned by the subscriber'),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
  created_at: Timestamp,
});
/**
 * One delivery read by itself (its read, a redelivery's and a recovery's answers): the log entry
 * and whether it is a test. The list's entries stay exactly the spec's fields.
 */
export const DeliveryRecord = DeliveryLogEntry.extend({
  test: z
    .boolean()
    .describe('True for a test delivery (the documented example, sent with `X-Webhook-Test: true`)'),
});
export const DeliveryList = z.object({ deliveries: z.array(DeliveryLogEntry) });
export const DeliveryRecordList = z.object({ deliveries: z.array(DeliveryRecord) });
export const DeliveryLogPage = DeliveryList.extend({ next_cursor: cursorPageFields.next_cursor });

export const DeliveryAttempt = z.object({
  attempt: z.number().int().min(1).max(5).describe('1 for the first attempt, up to 5'),
  attempted_at: Timestamp.describe('When the attempt ended (response, error or timeout)'),
  response_status: z
    .number()
    .int()
    .nullable()
    .describe("The receiver's HTTP status; null when there was no response"),
  duration_ms: z.number().int().describe('How long the attempt took'),
  error: z.string().nullable().describe('Why it failed (HTTP status, timeout, refused destination)'),
});
const HeaderMap = z.record(z.string(), z.string());
export const AttemptRequest = z
  .object({
    headers: HeaderMap.describe('Exactly the headers sent, X-Webhook-Signature included'),
    body: z.string().describe('Exactly the body sent (the signed bytes)'),
  })
  .nullable()
  .describe(
    'What was sent; null when nothing was (refused destination) or once cleared after WEBHOOK_ATTEMPT_RETENTION_DAYS',
  );
export const AttemptResponse = z
  .object({
    status: z.number().int(),
    headers: HeaderMap.describe('Header names lower-cased'),
    body: z.string().describe('The first 4,096 bytes of the body, as UTF-8 text'),
    body_truncated: z.boolean().describe('The body went on past 4,096 bytes'),
  })
  .nullable()
  .describe("The receiver's answer; null when none came (timeout, network error) or once cleared");
export const DeliveryAttemptDetail = DeliveryAttempt.extend({
  request: AttemptRequest,
  response: AttemptResponse,
});
export const DeliveryDetail = DeliveryRecord.extend({
  history: z.array(DeliveryAttemptDetail).describe('Every attempt made so far, oldest first'),
});

/** POST /api/v2/webhooks/{id}/test: which catalog event's documented example to send. */
export const TestEventBody = z.strictObject({
  event_type: z.enum(EVENT_TYPES as [string, ...string[]]).describe('A catalog event name (not `*`)'),
});
export const TestEventQueued = z.object({
  delivery_id: z.string().describe("The test delivery's id: it appears in this endpoint's delivery log"),
});
export const SecretRotated = z.object({
  secret: z.string().describe('The new signing secret (`whsec_…`): shown only in this response'),
});

export const EventTypes = z.object({
  event_types: z.array(z.enum(EVENT_TYPES as [string, ...string[]])),
  groups: z.record(z.string(), z.array(z.string())),
  wildcard: z.literal(ALL_EVENTS),
});
export const eventTypesBody = () => ({
  event_types: [...EVENT_TYPES],
  groups: EVENT_GROUPS,
  wildcard: ALL_EVENTS,
});
