/**
 * Typed webhook events: the document's top-level `webhooks` (one entry per catalog event, generated
 * into generated/openapi.ts as the `webhooks` interface) read as one union discriminated on
 * `event_type`, and a verifier that returns such an event once its signature holds.
 *
 * ```ts
 * const event = await verifyWebhook({ payload: await request.text(), headers: request.headers, secret });
 * if (!event) return new Response('bad signature', { status: 401 });
 * if (event.event_type === 'ticket.created') console.log(event.data.ticket.subject);
 * ```
 */
import type { webhooks } from './generated/openapi.js';
import { type VerifyWebhookInput, verifyWebhookSignature } from './webhooks.js';

/** The JSON body the document declares for a delivery (the `post` of a `webhooks` entry). */
type DeliveryBody<Item> = Item extends { post?: infer Op }
  ? NonNullable<Op> extends { requestBody?: infer B }
    ? NonNullable<B> extends { content: { 'application/json': infer Body } }
      ? Body
      : never
    : never
  : never;

/**
 * A body whose `event_type` the document leaves a plain string gets the entry's name there, so
 * the union stays discriminated whichever way the document spells it.
 */
type Named<Name, Body> = Body extends { event_type: infer T }
  ? string extends T
    ? Omit<Body, 'event_type'> & { event_type: Name }
    : Body
  : Body;

/** The union of the deliveries a `webhooks` interface (as openapi-typescript generates it) declares. */
export type WebhookEventFrom<W> = { [K in keyof W]: Named<K, DeliveryBody<W[K]>> }[keyof W];

/** Every event the document declares: `{event_type, timestamp, data}`, narrowed by `event_type`. */
export type WebhookEvent = WebhookEventFrom<webhooks>;

type EventTypeOf<E> = E extends { event_type: infer T } ? T : never;
/** `'ticket.created' | 'ticket.updated' | …`: the catalog's event names. */
export type WebhookEventType = EventTypeOf<WebhookEvent>;
/** One event by name, e.g. `WebhookEventOf<'ticket.created'>['data']` is a created ticket. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { event_type: T }>;

/**
 * The delivery's event when the signature (and, with `toleranceSeconds`, the timestamp) holds;
 * `null` when it does not or the body is not JSON. An event type newer than this client comes
 * back too, typed as one of the known ones: keep a default branch in a `switch (event.event_type)`.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent | null> {
  if (!(await verifyWebhookSignature(input))) return null;
  const text = typeof input.payload === 'string' ? input.payload : new TextDecoder().decode(input.payload);
  try {
    const event: unknown = JSON.parse(text);
    return typeof event === 'object' && event !== null ? (event as WebhookEvent) : null;
  } catch {
    return null;
  }
}

export { type VerifyWebhookInput, verifyWebhookSignature };
