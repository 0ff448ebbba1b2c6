import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../context/app-env';
import { ApiError, Detail } from '../http/errors';

const BODYLESS = new Set(['GET', 'HEAD']);

/** A request's body as its headers describe it: none (GET, HEAD), its stated length, or streamed. */
export function bodyLengthOf(req: Request): number | 'streamed' | null {
  if (BODYLESS.has(req.method)) return null;
  if (req.headers.has('transfer-encoding')) return 'streamed';
  const length = req.headers.get('content-length');
  return length === null ? 'streamed' : Number.parseInt(length, 10);
}

// Raw file uploads (docs/files.md): the body is the file, not JSON, up to ATTACHMENT_MAX_BYTES
// rather than MAX_BODY_BYTES, and its handler counts and hashes it as it streams into storage
// (shared/files/upload.ts); Hono's bodyLimit would queue a streamed body in memory as fast as it
// arrives, so these are not counted by the router too.
const RAW_UPLOAD =
  /^\/api\/(?:v1\/(?:tickets|conversations)\/[^/]+\/attachments|internal\/calls\/[^/]+\/recording)$/;
export const isRawUpload = (method: string, path: string): boolean =>
  method === 'POST' && RAW_UPLOAD.test(path);

// Inbound channel messages (email, WhatsApp: internal token only) carry their files inline, base64
// in the JSON (shared/files/inbound.ts): their body may be the JSON cap plus one file at
// ATTACHMENT_MAX_BYTES, base64-encoded. The public widget keeps the JSON cap.
const INBOUND_WITH_FILES = /^\/api\/internal\/channels\/(?:email|whatsapp)$/;
const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

/** The most bytes a request's body may have: `json` (MAX_BODY_BYTES) unless it carries files. */
export function bodyCapOf(method: string, path: string, caps: { json: number; upload: number }): number {
  if (isRawUpload(method, path)) return caps.upload;
  if (method === 'POST' && INBOUND_WITH_FILES.test(path)) return caps.json + base64Length(caps.upload);
  return caps.json;
}

// the unread rest of the body makes the socket unusable, and Node closes it: say so, so a pooled
// client opens a new connection instead of failing its next request
export const tooLarge = () => new ApiError(413, Detail.bodyTooLarge, { Connection: 'close' });

/**
 * Whether the body comes under a content coding (`Content-Encoding: gzip`, `br`, …). The API reads a
 * body as the bytes sent: a compressed JSON body would fail as text that is not UTF-8, and a
 * compressed upload would be stored compressed, so both are refused before either is read.
 */
export function isContentCoded(req: Request): boolean {
  if (BODYLESS.has(req.method)) return false;
  const coding = req.headers.get('content-encoding');
  if (coding === null) return false;
  return coding.split(',').some((c) => {
    const name = c.trim().toLowerCase();
    return name !== '' && name !== 'identity';
  });
}

// RFC 9110 §15.5.16: a coding the server does not take is 415, with Accept-Encoding naming the ones it
// does (§12.5.3); the unread body closes the socket as with a 413
export const contentCoded = () =>
  new ApiError(415, Detail.contentEncodingUnsupported, {
    'Accept-Encoding': 'identity',
    Connection: 'close',
  });

// a streamed body whose sender went away (or broke the chunking) before its end: the caller's
// doing, so a 400 in the access log and the meter rather than a 500 that would page someone
const incomplete = (err: unknown) => {
  throw err instanceof ApiError ? err : new ApiError(400, Detail.bodyIncomplete, { Connection: 'close' });
};

/**
 * Counts a body of unstated size as it streams (Hono's bodyLimit): 413 past `maxBytes`, 400 when
 * it ends early. A stated Content-Length is checked by the gate alone (the HTTP parser holds
 * the body to it). Not bodyLimit for both: it first reads `c.req.raw.body`, which makes the Node
 * adapter build a full WHATWG Request and read the body through web streams, about a fifth of
 * ticket creation's server CPU.
 */
export function streamedBodyCounter(maxBytes: number) {
  const countBody: MiddlewareHandler<AppEnv> = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return (c: Context<AppEnv>, next: Next): Promise<void> =>
    (countBody(c, next) as Promise<void>).catch(incomplete);
}
