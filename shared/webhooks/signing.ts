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
  /** `true` on a test delivery (an event's documented example), absent on a real event */
  test: 'X-Webhook-Test',
} as const;

/** The Standard Webhooks headers (standardwebhooks.com), sent beside the spec's. */
export const StandardHeader = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();
const standardKeys = new Map<string, Promise<CryptoKey>>();

/**
 * The HMAC key Standard Webhooks derives from a secret: the base64-decoded part after `whsec_`.
 * Our secrets are `whsec_` + 40 base62 characters, which are base64 characters too (40 of them
 * decode to 30 bytes), so the same secret serves both signatures.
 */
function standardKey(secret: string): Promise<CryptoKey> {
  let key = standardKeys.get(secret);
  if (!key) {
    const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
    // a secret a subscriber chose (`--secret`) need not be base64: its UTF-8 bytes then, so a
    // delivery is always signed (a Standard Webhooks library needs a base64 secret to verify it)
    let raw: Uint8Array<ArrayBuffer>;
    try {
      raw = Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0));
    } catch {
      raw = encoder.encode(encoded);
    }
    key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (standardKeys.size > 5000) standardKeys.clear();
    standardKeys.set(secret, key);
  }
  return key;
}

/** `v1,` + base64 HMAC-SHA256 of `<id>.<unix seconds>.<raw body>` (Standard Webhooks' signature). */
export async function signStandard(secret: string, id: string, unixSeconds: number, rawBody: string) {
  const mac = await crypto.subtle.sign(
    'HMAC',
    await standardKey(secret),
    encoder.encode(`${id}.${unixSeconds}.${rawBody}`),
  );
  let binary = '';
  for (const b of new Uint8Array(mac)) binary += String.fromCharCode(b);
  return `v1,${btoa(binary)}`;
}

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
  /**
   * The secret a rotation replaced, while its overlap lasts: `webhook-signature` then carries the
   * new secret's signature and this one's, space separated, so a receiver holding either verifies.
   */
  previousSecret?: string | null;
  /** a test delivery: sent with `X-Webhook-Test: true` (outside both signatures, like every header) */
  test?: boolean;
}): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify({
    event_type: input.eventType,
    timestamp: input.eventTimestamp,
    data: input.data,
  });
  const now = input.now ?? new Date();
  const timestamp = now.toISOString();
  const unix = Math.floor(now.getTime() / 1000);
  const signatures = [signStandard(input.secret, input.deliveryId, unix, body)];
  if (input.previousSecret) signatures.push(signStandard(input.previousSecret, input.deliveryId, unix, body));
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'SupportPlatform-Webhooks/1.0',
      [WebhookHeader.event]: input.eventType,
      [WebhookHeader.timestamp]: timestamp,
      [WebhookHeader.signature]: await signWebhook(input.secret, timestamp, body, input.sign),
      [WebhookHeader.deliveryId]: input.deliveryId,
      [StandardHeader.id]: input.deliveryId,
      [StandardHeader.timestamp]: String(unix),
      [StandardHeader.signature]: (await Promise.all(signatures)).join(' '),
      ...(input.test ? { [WebhookHeader.test]: 'true' } : {}),
    },
  };
}
