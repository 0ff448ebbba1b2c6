import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { gate } from '../auth/gate';
import { ApiError, Detail, handleError } from '../http/errors';
import { idempotency } from '../http/idempotency';
import { setResponseHeader } from '../http/response-headers';
import type { AppEnv, FunctionApp } from './app-env';
import type { Services } from './services';

export interface RootOptions {
  /**
   * The `services` variable, the only runtime-specific piece: one object for the whole process
   * (Node), or a middleware that builds them per request and cleans up after it (Workers).
   */
  provideServices: Services | MiddlewareHandler<AppEnv>;
  maxBodyBytes: number;
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  authenticate?: MiddlewareHandler<AppEnv>;
  /** middleware that runs after the gate, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
}

/**
 * Composes function apps the same way on every runtime: request id and body limit, services, the
 * auth gate, rate limits and metering (afterGate), Idempotency-Key replay, then the routes; one
 * error handler and one 404 for all.
 */
export function buildRoot(apps: readonly FunctionApp[], options: RootOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      // the unread rest of the body makes the socket unusable, and Node closes it: say so, so a
      // pooled client opens a new connection instead of failing its next request
      throw new ApiError(413, Detail.bodyTooLarge, { Connection: 'close' });
    },
  });
  // What every request gets before anything else looks at it: the process's services (Node), its
  // caller's request id, echoed on every response (errors too), and its size limit. One middleware,
  // not three: each layer of Hono's chain costs a few promises on every request. Ids are generated
  // only where something records them (shared/http/errors.ts: a 500 and its log line).
  const processServices = typeof options.provideServices === 'function' ? null : options.provideServices;
  root.use('*', function requestFrame(c, next) {
    if (processServices) c.set('services', processServices);
    const sent = c.req.header('x-request-id');
    if (sent) {
      const id = sent.slice(0, 128);
      c.set('requestId', id);
      // set before the response exists, so errors carry it too (see setResponseHeader: not c.header)
      setResponseHeader(c, 'X-Request-Id', id);
    }
    // GET and HEAD carry no body: skipping the check there also spares the Node adapter from
    // building a full Request object (reading `.body` does), the costliest step of a cheap request
    return c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next);
  });
  if (typeof options.provideServices === 'function') root.use('*', options.provideServices);
  root.use('*', options.authenticate ?? gate);
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  root.use('*', idempotency());
  for (const app of apps) root.route('/', app);
  root.notFound((c) => c.json({ detail: Detail.notFound }, 404));
  root.onError(handleError);
  return root;
}
