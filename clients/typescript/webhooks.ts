/**
 * Webhook signature verifier, for subscribers (part of the typed client; the server signs in
 * shared/webhooks/signing.ts and never verifies its own deliveries). Web Crypto only, so it runs in
 * Node 18+, Deno, Bun, browsers and Workers: import it from the client, or copy this one file.
 *
 * ```ts
 * const raw = await request.text(); // the RAW body, before JSON.parse
 * const ok = await verifyWebhookSignature({
 *   payload: raw,
 *   headers: request.headers,
 *   secret: process.env.WEBHOOK_SECRET!,
 *   toleranceSeconds: 300,
 * });
 * if (!ok) return new Response('bad signature', { status: 401 });
 * ```
 */
export interface VerifyWebhookInput {
  /** the raw request body exactly as received (string or bytes) */
  payload: string | Uint8Array;
  /** the request headers (a Headers object or a plain record; names case-insensitive) */
  headers?: Headers | Record<string, string | string[] | undefined> | undefined;
  /** or the two values directly */
  timestamp?: string | undefined;
  signature?: string | undefined;
  /** the subscription secret (`whsec_…`), shown once at creation */
  secret: string;
  /** refuse timestamps further than this from now (replay protection); omitted = no check */
  toleranceSeconds?: number | undefined;
  /** for tests: the current time */
  now?: Date | undefined;
}

const encoder = new TextEncoder();

function header(headers: VerifyWebhookInput['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lower) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function constantTimeEqual(a: string, b: string): boolean {
  const ab = encoder.encode(a);
  const bb = encoder.encode(b);
  let diff = ab.length ^ bb.length;
  const n = Math.max(ab.length, bb.length);
  for (let i = 0; i < n; i++) diff |= (ab[i] ?? 0) ^ (bb[i] ?? 0);
  return diff === 0;
}

/**
 * `true` when either signature holds: `X-Webhook-Signature`, the HMAC-SHA256 of
 * `timestamp + "." + payload`, or one of the Standard Webhooks signatures in `webhook-signature`
 * (`v1,<base64>` of `<webhook-id>.<webhook-timestamp>.<payload>`, keyed with the base64 part of the
 * secret after `whsec_`; after a secret rotation it carries the old secret's too). The timestamp
 * must be fresh enough when `toleranceSeconds` is given.
 */
export async function verifyWebhookSignature(input: VerifyWebhookInput): Promise<boolean> {
  if (await verifySpecSignature(input)) return true;
  return input.signature === undefined && verifyStandardSignature(input);
}

/** The Standard Webhooks form (standardwebhooks.com), as the `standardwebhooks` package checks it. */
async function verifyStandardSignature(input: VerifyWebhookInput): Promise<boolean> {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (input.toleranceSeconds !== undefined) {
    const now = (input.now ?? new Date()).getTime();
    if (Math.abs(now - Number(timestamp) * 1000) > input.toleranceSeconds * 1000) return false;
  }
  let raw: Uint8Array;
  try {
    const encoded = input.secret.startsWith('whsec_') ? input.secret.slice(6) : input.secret;
    raw = Uint8Array.from(atob(encoded), (ch) => ch.charCodeAt(0));
  } catch {
    return false;
  }
  const body = typeof input.payload === 'string' ? encoder.encode(input.payload) : input.payload;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  const key = await crypto.subtle.importKey(
    'raw',
    raw as BufferSource,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, message as BufferSource));
  let binary = '';
  for (const b of mac) binary += String.fromCharCode(b);
  const expected = `v1,${btoa(binary)}`;
  return signatures.split(' ').some((candidate) => constantTimeEqual(expected, candidate));
}

async function verifySpecSignature(input: VerifyWebhookInput): Promise<boolean> {
  const timestamp = input.timestamp ?? header(input.headers, 'X-Webhook-Timestamp');
  const signature = (input.signature ?? header(input.headers, 'X-Webhook-Signature'))?.trim().toLowerCase();
  if (!timestamp || !signature) return false;
  if (input.toleranceSeconds !== undefined) {
    const sent = Date.parse(timestamp);
    if (Number.isNaN(sent)) return false;
    const now = (input.now ?? new Date()).getTime();
    if (Math.abs(now - sent) > input.toleranceSeconds * 1000) return false;
  }
  const body = typeof input.payload === 'string' ? encoder.encode(input.payload) : input.payload;
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix, 0);
  message.set(body, prefix.length);
  const key = await crypto.subtle.importKey(
    'raw',
    encoder.encode(input.secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
  let expected = '';
  for (const b of mac) expected += b.toString(16).padStart(2, '0');
  return constantTimeEqual(expected, signature);
}
