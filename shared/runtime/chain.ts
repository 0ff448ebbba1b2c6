import type { MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { type AccessRule, compileAccess } from '../auth/access';
import type { AppEnv, FunctionApp } from '../context/app-env';
import { handleError } from '../http/errors';
import { idempotency, KEYED_SURFACES } from '../http/idempotency';
import { patternOfRouterMatch } from '../http/route-pattern';
import { isRawUpload } from './body-size';
import { admitted, decidedEnv, executionCtxOf, type GateOptions, gate } from './gate';
import { earlyRefusal, speculation } from './shortcuts';
import { answerUnrouted, methodRefusal } from './unrouted';

export type { ProvidedServices, ServicesProvider } from './gate';

export interface ChainOptions extends Omit<GateOptions, 'access'> {
  /** who may call which path: every function's rules (embedded), or the Worker's function's own */
  access: readonly AccessRule[];
  /** middleware that runs once the caller is admitted, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
  /**
   * the optional middleware of ./shortcuts.ts (default: both): they change no answer, only what
   * it costs; a test turns them off to hold the answers equal
   */
  shortcuts?: { earlyRefusal?: boolean; speculation?: boolean };
}

/**
 * The one middleware chain every request passes, on Node and on Workers (only `provideServices`
 * differs), in this order:
 *
 * 1. the gate (./gate.ts): request id, services, stated body size, the credential's verdict; CORS
 *    on the browser surfaces; the access line once answered;
 * 2. the shortcuts, optional (./shortcuts.ts): a refusal answered at once; a warm key's read run
 *    while its check is in flight;
 * 3. `admitted()` (./gate.ts): the verdict enforced, a refusal thrown;
 * 4. `afterGate`: rate limits, metering (shared/ratelimit, shared/usage);
 * 5. Idempotency-Key replay (shared/http/idempotency.ts);
 * 6. the 405 of a path served with other methods (./unrouted.ts, Hono's method-not-allowed);
 * 7. the functions' routes (functions/<name>/app.ts);
 * then one error handler (`{"detail": …}`, shared/http/errors.ts) and one answer when no route
 * serves the request (./unrouted.ts: 404, which step 6 turns into the 405).
 */
export function buildChain(apps: readonly FunctionApp[], options: ChainOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  const access = compileAccess(options.access);
  const shortcuts = { earlyRefusal: true, speculation: true, ...options.shortcuts };
  // the share middleware's claim, when it offers one: a keyed request's key read takes the share
  const claimShare = options.afterGate
    ?.map((mw) => (mw as { shareClaim?: GateOptions['claimShare'] }).shareClaim)
    .find((claim) => claim !== undefined);
  root.use('*', gate({ ...options, access, claimShare }));
  if (shortcuts.earlyRefusal) root.use('*', earlyRefusal());
  if (shortcuts.speculation)
    root.use(
      '*',
      speculation((c, verdict) =>
        root.fetch(c.req.raw, decidedEnv(c, verdict) as AppEnv['Bindings'], executionCtxOf(c)),
      ),
    );
  root.use('*', admitted());
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  /** Does a route serve this method and path? (HEAD is served by GET.) */
  const routed = (method: string, path: string) =>
    patternOfRouterMatch(root.router.match(method === 'HEAD' ? 'GET' : method, path)[0]) !== null;
  // a method no route serves is a 405 whatever key it carries, so it never reaches the key store;
  // nor does a raw file upload (the key's fingerprint would read the whole file into memory first)
  root.use(
    '*',
    idempotency(
      (path, method) =>
        KEYED_SURFACES.has(access.surfaceOf(path)) && routed(method, path) && !isRawUpload(method, path),
    ),
  );
  root.use('*', methodRefusal(root));
  for (const app of apps) root.route('/', app);
  root.notFound(answerUnrouted);
  root.onError(handleError);
  return root;
}
