import { type Context, Hono, type MiddlewareHandler, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { gate } from '../auth/gate';
import type { AppEnv, FunctionApp } from '../context/app-env';
import type { Services } from '../context/services';
import { browserCors, isBrowserPath } from '../http/cors';
import { ApiError, Detail, handleError } from '../http/errors';
import { idempotency } from '../http/idempotency';
import { echoRequestIdAfter, echoRequestIdBefore, jsonAnswer } from '../http/response-headers';
import { requestIdFrom } from '../ids';
import type { Logger } from '../log/logger';
import { logAccess } from './access-log';

export interface RootOptions {
  /**
   * The `services` variable, the only runtime-specific piece: one object for the whole process
   * (Node), or a middleware that builds them per request and cleans up after it (Workers).
   */
  provideServices: Services | MiddlewareHandler<AppEnv>;
  maxBodyBytes: number;
  /** where the access log goes: the logger the services hold */
  logger: Logger;
  /** CORS_ALLOWED_ORIGINS: who may call the browser surfaces (shared/http/cors.ts) */
  corsOrigins: '*' | readonly string[];
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  authenticate?: MiddlewareHandler<AppEnv>;
  /** middleware that runs after the gate, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
}

/**
 * Composes function apps the same way on every runtime: request id, CORS, body limit and access log,
 * services, the auth gate, rate limits and metering (afterGate), Idempotency-Key replay, then the
 * routes; one error handler and one 404 for all.
 */
export function buildRoot(apps: readonly FunctionApp[], options: RootOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  // the unread rest of the body makes the socket unusable, and Node closes it: say so, so a pooled
  // client opens a new connection instead of failing its next request
  const tooLarge = () => new ApiError(413, Detail.bodyTooLarge, { Connection: 'close' });
  // a streamed body whose sender went away (or broke the chunking) before its end: the caller's
  // doing, so a 400 in the access log and the meter rather than a 500 that would page someone
  const incomplete = (err: unknown) => {
    throw err instanceof ApiError ? err : new ApiError(400, Detail.bodyIncomplete, { Connection: 'close' });
  };
  const countBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  // The size limit. A stated Content-Length is the whole check (the HTTP parser holds the body to
  // it), as in Hono's bodyLimit; only a body of unstated size is counted as it streams, by
  // bodyLimit itself. Not bodyLimit for both: it first reads `c.req.raw.body`, which makes the
  // Node adapter build a full WHATWG Request and then read the body through web streams, about a
  // fifth of ticket creation's server CPU (README, Benchmarks).
  const limitBody = (c: Context<AppEnv>, next: Next): Promise<void> => {
    const length = c.req.header('content-length');
    // (what comes after next() answers its own errors through onError: only the read fails here)
    if (length === undefined || c.req.header('transfer-encoding') !== undefined)
      return (countBody(c, next) as Promise<void>).catch(incomplete);
    return Number.parseInt(length, 10) > options.maxBodyBytes ? Promise.reject(tooLarge()) : next();
  };
  const cors = browserCors(options.corsOrigins);
  // What every request gets before anything else looks at it: the process's services (Node), its
  // request id (the caller's, else a new one: shared/ids.ts, a tag and a counter), echoed
  // on every response, errors too; CORS on the browser surfaces (a preflight is answered here,
  // before the gate: it carries no credential), the size limit, and the access line once answered.
  // One middleware, not five: each layer of Hono's chain costs a few promises on every request.
  const processServices = typeof options.provideServices === 'function' ? null : options.provideServices;
  root.use('*', function requestFrame(c, next) {
    const started = performance.now();
    if (processServices) c.set('services', processServices);
    const id = requestIdFrom(c.req.header('x-request-id'));
    c.set('requestId', id);
    // on every response, errors too: jsonAnswer builds the refusals and errors with it; the rest
    // get it here, before (off Node) or once answered (on Node): shared/http/response-headers.ts
    echoRequestIdBefore(c, id);
    // GET and HEAD carry no body: skipping the check there also spares the Node adapter from
    // building a full Request object (reading `.body` does), the costliest step of a cheap request
    // (limitBody answers nothing itself: its refusal is a rejection)
    const proceed: Next = c.req.method === 'GET' || c.req.method === 'HEAD' ? next : () => limitBody(c, next);
    const answered = isBrowserPath(c.req.path) ? cors(c, proceed) : proceed();
    return answered.then(
      (res) => {
        const answer = res instanceof Response ? res : c.res;
        echoRequestIdAfter(c, id, answer);
        logAccess(c, options.logger, started, answer.status);
        return res;
      },
      (err: unknown) => {
        // only the frame's own refusal (413) gets here; everything later was answered by onError
        // (both answer through handleError, whose jsonAnswer carries the request id)
        logAccess(c, options.logger, started, err instanceof ApiError ? err.status : 500);
        throw err;
      },
    );
  });
  if (typeof options.provideServices === 'function') root.use('*', options.provideServices);
  root.use('*', options.authenticate ?? gate);
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  root.use('*', idempotency());
  for (const app of apps) root.route('/', app);
  root.notFound((c) => jsonAnswer(c, { detail: Detail.notFound }, 404));
  root.onError(handleError);
  return root;
}
