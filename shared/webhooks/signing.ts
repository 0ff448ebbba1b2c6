import { hmacSha256Hex, randomBase62 } from '../crypto';
import type { Signer } from './port';

/**
 * How a delivery is signed (spec: Events > Signature): lowercase hex HMAC-SHA256, keyed with the
 * subscription secret, over `X-Webhook-Timestamp + "." + raw body`. No `sha256=` prefix.
 */
export async function signWebhook(
  secret: string,
  timestamp: string,
  rawBody: string,
  sign: Signer = hmacSha256Hex,
): Promise<string> {
  return sign(secret, `${timestamp}.${rawBody}`);
}

/** A new subscription secret: `whsec_` + 40 base62 characters (~238 bits). */
export const generateWebhookSecret = () => `whsec_${randomBase62(40)}`;

export const WebhookHeader = {
  event: 'X-Webhook-Event',
  timestamp: 'X-Webhook-Timestamp',
  signature: 'X-Webhook-Signature',
  deliveryId: 'X-Webhook-Delivery-Id',
} as const;

/** The body and headers of one attempt. The body is `{event_type, timestamp, data}` (no ids). */
export async function buildSignedRequest(input: {
  secret: string;
  deliveryId: string;
  eventType: string;
  eventTimestamp: string;
  data: unknown;
  /** when this attempt is signed: the X-Webhook-Timestamp value */
  now?: Date;
  /** the runtime's HMAC (WebhookPort.sign); WebCrypto by default */
  sign?: Signer;
}): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify({
    event_type: input.eventType,
    timestamp: input.eventTimestamp,
    data: input.data,
  });
  const timestamp = (input.now ?? new Date()).toISOString();
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'SupportPlatform-Webhooks/1.0',
      [WebhookHeader.event]: input.eventType,
      [WebhookHeader.timestamp]: timestamp,
      [WebhookHeader.signature]: await signWebhook(input.secret, timestamp, body, input.sign),
      [WebhookHeader.deliveryId]: input.deliveryId,
    },
  };
}
