import type { Context } from 'hono';

interface NodeOutgoing {
  setHeader(name: string, value: string): unknown;
  headersSent: boolean;
}

/**
 * Sets a header every response of this request carries, whatever builds it (handler or error).
 *
 * On Node the header goes straight onto the `ServerResponse` (@hono/node-server's `c.env.outgoing`
 * binding): `writeHead` merges it with the response's own headers, which win on a clash. Through
 * `c.header` instead, Hono gives every response a WHATWG `Headers` object that the adapter must
 * then copy out again; for the headers set on every request (X-Request-Id, X-RateLimit-*) that was
 * a third of a refused request's cost. Elsewhere (Workers, `app.request` in tests): `c.header`.
 */
export function setResponseHeader(c: Context, name: string, value: string): void {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) {
    outgoing.setHeader(name, value);
  } else {
    c.header(name, value);
  }
}
