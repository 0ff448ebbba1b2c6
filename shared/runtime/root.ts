import type { ExecutionContext, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { type AccessRule, compileAccess } from '../auth/access';
import type { Admission, GateRequest } from '../auth/gate';
import type { AppEnv, FunctionApp } from '../context/app-env';
import { handleError } from '../http/errors';
import { idempotency } from '../http/idempotency';
import { patternOfRouterMatch } from '../http/route-pattern';
import type { Logger } from '../log/logger';
import { isRawUpload } from './body-size';
import { doorAnswerer } from './door-answer';
import { type Entry, frontDoor, isRefused, type ServicesProvider } from './front-door';
import { provisionalRouter } from './provisional-route';
import { enterRouter } from './router-entry';
import { unroutedAnswer } from './unrouted';

export type { ProvidedServices } from './front-door';

type Bindings = AppEnv['Bindings'] | undefined;

export interface RootOptions {
  provideServices: ServicesProvider;
  maxBodyBytes: number;
  /** the cap of a raw file upload's body (ATTACHMENT_MAX_BYTES): shared/runtime/body-size.ts */
  uploadMaxBytes?: number;
  /** who may call which path: every function's rules (embedded), or the Worker's function's own */
  access: readonly AccessRule[];
  /** where the access log goes: the logger the services hold */
  logger: Logger;
  /** CORS_ALLOWED_ORIGINS: who may call the browser surfaces (shared/http/cors.ts) */
  corsOrigins: '*' | readonly string[];
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  admit?: (req: GateRequest) => Admission | Promise<Admission>;
  /** middleware that runs after the gate, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
}

/**
 * Composes function apps the same way on every runtime, in two steps.
 *
 * 1. The front door (./front-door.ts), before Hono's router: the request id, the services, a
 *    stated body size over the limit (413) and the auth gate, decided into one `Entry`. Off the
 *    browser surfaces a refused entry is answered right there (./door-answer.ts).
 * 2. The router, for every other entry: the entry into the context (./router-entry.ts; CORS on the
 *    browser surfaces, which then answers the refusal), rate limits and metering (afterGate),
 *    Idempotency-Key replay, then the routes; one error handler, and one answer when no route
 *    serves the request (./unrouted.ts: 405 with Allow, or 404).
 *
 * The returned app's `fetch` is the front door; the router is reached only through it.
 */
export function buildRoot(apps: readonly FunctionApp[], options: RootOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  const access = compileAccess(options.access);
  const entries = new WeakMap<Request, Entry>();
  root.use('*', enterRouter({ ...options, entryOf: (req) => entries.get(req) }));
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  /** The pattern of the route that would have answered (the access line names a refusal by it). */
  const routeOf = (method: string, path: string) =>
    patternOfRouterMatch(root.router.match(method === 'HEAD' ? 'GET' : method, path)[0]);
  // a method no route serves is a 405 whatever key it carries, so it never reaches the key store
  root.use(
    '*',
    // (not a raw file upload: the key's fingerprint would read the whole file into memory first)
    idempotency(
      (path, method) =>
        access.surfaceOf(path) === 'api' && routeOf(method, path) !== null && !isRawUpload(method, path),
    ),
  );
  for (const app of apps) root.route('/', app);
  root.notFound(unroutedAnswer(root));
  root.onError(handleError);

  const enter = frontDoor({
    ...options,
    access,
    pathOf: (req, env) => root.getPath(req, { env: env as Bindings }),
  });
  const answerAtDoor = doorAnswerer(options.logger, routeOf);
  const route = root.fetch;
  const routeProvisional = provisionalRouter({
    route: (req, env, ctx, entry) => {
      entries.set(req, entry);
      return route(req, env as Bindings, ctx);
    },
    answerAtDoor,
    routeEntry: (req, env, ctx, entry) => routeEntry(req, env as Bindings, ctx, entry),
  });

  const routeEntry = (
    req: Request,
    env: Bindings,
    ctx: ExecutionContext | undefined,
    entry: Entry,
  ): Response | Promise<Response> => {
    if (!entry.browser && isRefused(entry)) return answerAtDoor(req, entry);
    const confirmed = entry.admission?.confirmed;
    if (confirmed) return routeProvisional(req, env, ctx, entry, confirmed);
    entries.set(req, entry);
    const res = route(req, env, ctx);
    if (res instanceof Promise) res.then(entry.release, entry.release);
    else entry.release();
    return res;
  };
  root.fetch = function throughFrontDoor(req, env, ctx) {
    const entry = enter(req, env, ctx);
    // (no closure for the common case: a warm key's entry is at hand)
    if (!(entry instanceof Promise)) return routeEntry(req, env, ctx, entry);
    return entry.then((e) => routeEntry(req, env, ctx, e));
  };
  return root;
}
