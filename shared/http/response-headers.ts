import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

interface NodeOutgoing {
  setHeader(name: string, value: string): unknown;
  headersSent: boolean;
}

/** @hono/node-server's `ServerResponse` binding (`c.env.outgoing`), when the request came through it */
const nodeOutgoing = (c: Context): NodeOutgoing | null => {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  return outgoing && typeof outgoing.setHeader === 'function' ? outgoing : null;
};

/**
 * Sets a header every response of this request carries, whatever builds it (handler or error).
 *
 * On Node the header goes straight onto the `ServerResponse` (@hono/node-server's `c.env.outgoing`
 * binding): `writeHead` merges it with the response's own headers, which win on a clash. Through
 * `c.header` instead, Hono gives every response a WHATWG `Headers` object that the adapter must
 * then copy out again; for the headers set on every request (X-Request-Id, X-RateLimit-*) that copy
 * would be a large share of a refused request's cost. Elsewhere (Workers, `app.request` in tests): `c.header`.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeOutgoing(c);
  if (outgoing) {
    if (!outgoing.headersSent) outgoing.setHeader(name, value);
  } else {
    c.header(name, value);
  }
}

/**
 * What every response carries, JSON included (docs/input.md, "every response"): no browser may sniff a
 * JSON answer (or an error echoing the caller's input) into HTML or script. Set here only: by the
 * router's entry for what it answers, and in the headers of every answer built here.
 */
export const NOSNIFF = 'nosniff';

/** The headers of a JSON answer: its type, nosniff, the request id (when known), then the answer's own. */
export function jsonAnswerHeaders(
  requestId: string | undefined,
  extra?: Record<string, string>,
): Record<string, string> {
  // (each shape a literal of its own: a key added afterwards is a map transition per answer)
  const headers: Record<string, string> =
    requestId === undefined
      ? { 'Content-Type': 'application/json', 'X-Content-Type-Options': NOSNIFF }
      : { 'Content-Type': 'application/json', 'X-Content-Type-Options': NOSNIFF, 'X-Request-Id': requestId };
  if (extra) Object.assign(headers, extra);
  return headers;
}

/** Answers built by `jsonAnswer`: they carry the request id in their own headers already. */
const carryingRequestId = new WeakSet<Response>();

/**
 * A JSON answer that carries the request's id (and `extra` headers) in its own headers: the gate's
 * refusals, every error, the 404. On Node the headers reach `writeHead` as one plain object, the
 * cheapest way a header gets onto the wire: a header set on the `ServerResponse` beforehand makes
 * node merge the two (each key through `setHeader` again), and `c.json` with more than one header
 * builds a WHATWG `Headers` the adapter copies out again, both costs a refusal answered in the front
 * door would pay on every request (docs/benchmarks.md, "The refusal (f)"). Elsewhere `c.json`, which
 * also merges what `c.header` set.
 */
export function jsonAnswer(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode,
  extra?: Record<string, string>,
): Response {
  const headers = jsonAnswerHeaders(c.get('requestId') as string | undefined, extra);
  if (!nodeOutgoing(c)) return c.json(body, status, headers);
  const res = new Response(JSON.stringify(body), { status, headers });
  carryingRequestId.add(res);
  return res;
}

/**
 * The request id and nosniff onto every response of this request. Off Node: into Hono's prepared headers now,
 * which every response Hono builds merges. On Node: nothing now; `echoRequestIdAfter` puts it on the
 * `ServerResponse` once the answer is known, unless the answer carries it (jsonAnswer).
 */
export function echoRequestIdBefore(c: Context, requestId: string): void {
  if (nodeOutgoing(c)) return;
  c.header('X-Request-Id', requestId);
  c.header('X-Content-Type-Options', NOSNIFF);
}

/** Node's half of echoRequestIdBefore: called with the answer, before the adapter writes it. */
export function echoRequestIdAfter(c: Context, requestId: string, answer: Response): void {
  if (carryingRequestId.has(answer)) return;
  const outgoing = nodeOutgoing(c);
  if (outgoing && !outgoing.headersSent) {
    outgoing.setHeader('X-Request-Id', requestId);
    outgoing.setHeader('X-Content-Type-Options', NOSNIFF);
  }
}
