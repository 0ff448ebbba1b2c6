import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { gate } from '../auth/gate';
import { ApiError, Detail, handleError } from '../http/errors';
import { idempotency } from '../http/idempotency';
import { setResponseHeader } from '../http/response-headers';
import type { AppEnv, FunctionApp } from './app-env';

export interface RootOptions {
  /** sets the `services` variable (the only runtime-specific piece) */
  provideServices: MiddlewareHandler<AppEnv>;
  maxBodyBytes: number;
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  authenticate?: MiddlewareHandler<AppEnv>;
  /** middleware that runs after the gate, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
}

/**
 * Composes function apps the same way on every runtime: request id, services, body limit, the
 * auth gate, rate limits and metering (afterGate), Idempotency-Key replay, then the routes; one
 * error handler and one 404 for all.
 */
export function buildRoot(apps: readonly FunctionApp[], options: RootOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  root.use('*', function requestId(c, next) {
    const id = c.req.header('x-request-id')?.slice(0, 128) || crypto.randomUUID();
    c.set('requestId', id);
    // set before the response exists, so errors carry it too (see setResponseHeader for why not c.header)
    setResponseHeader(c, 'X-Request-Id', id);
    return next();
  });
  root.use('*', options.provideServices);
  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw new ApiError(413, Detail.bodyTooLarge);
    },
  });
  // GET and HEAD carry no body: skipping the check there also spares the Node adapter from
  // building a full Request object (reading `.body` does), the costliest step of a cheap request
  root.use('*', function bodyLimitUnlessBodiless(c, next) {
    return c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next);
  });
  root.use('*', options.authenticate ?? gate);
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  root.use('*', idempotency());
  for (const app of apps) root.route('/', app);
  root.notFound((c) => c.json({ detail: Detail.notFound }, 404));
  root.onError(handleError);
  return root;
}
