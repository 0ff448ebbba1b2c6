import { type Context, type ExecutionContext, Hono, type MiddlewareHandler, type Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { type Admission, admit, type GateRequest } from '../auth/gate';
import type { AppEnv, FunctionApp } from '../context/app-env';
import type { Services } from '../context/services';
import { browserCors, isBrowserPath } from '../http/cors';
import { ApiError, Detail, errorAnswerOf, forbidden, handleError } from '../http/errors';
import { idempotency } from '../http/idempotency';
import {
  echoRequestIdAfter,
  echoRequestIdBefore,
  jsonAnswer,
  jsonAnswerHeaders,
} from '../http/response-headers';
import { patternOfRouterMatch } from '../http/route-pattern';
import { requestIdFrom } from '../ids';
import type { Logger } from '../log/logger';
import { logAccess, requestClock, writeAccessLine } from './access-log';

/** A request's services, and what to do once it is answered (Workers: close its database handle). */
export interface ProvidedServices {
  services: Services;
  release(): void;
}

export interface RootOptions {
  /**
   * The `services` variable, the only runtime-specific piece: one object for the whole process
   * (Node), or a function that builds them for one request (Workers), released once it is answered.
   */
  provideServices:
    | Services
    | ((env: unknown, executionCtx: ExecutionContext | undefined) => ProvidedServices);
  maxBodyBytes: number;
  /** where the access log goes: the logger the services hold */
  logger: Logger;
  /** CORS_ALLOWED_ORIGINS: who may call the browser surfaces (shared/http/cors.ts) */
  corsOrigins: '*' | readonly string[];
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  admit?: (req: GateRequest) => Admission | Promise<Admission>;
  /** middleware that runs after the gate, e.g. rate limiting (needs the tenant) */
  afterGate?: MiddlewareHandler<AppEnv>[];
}

/** A refusal the gate (or the body's stated size) decided before the router: handed on as a value. */
class Refused {
  constructor(readonly error: unknown) {}
}

/** What the front door decided for a request it lets into the router. */
interface Frame {
  startedAt: number;
  requestId: string;
  path: string;
  services: Services;
  /** once answered (Workers: close the request's database handle) */
  release: () => void;
  /** a browser surface: CORS runs first, and answers a refusal the front door handed on */
  browser: boolean;
  /** a body of unstated size (chunked, or no Content-Length): counted as it streams */
  streamed: boolean;
  verdict: Admission | Refused;
}

/** A frame's verdict until the gate decides: should one reach the router early, it is refused. */
const UNDECIDED = new Refused(new Error('the gate has not decided on this request'));

const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Composes function apps the same way on every runtime, in two stages.
 *
 * The front door (the returned app's `fetch`, before Hono's router): the request id (the caller's,
 * else a new one: shared/ids.ts), the services, a stated body size over the limit (413), and the
 * auth gate (shared/auth/gate.ts). Off the browser surfaces a refusal is answered right there, as
 * JSON with the request id, and logged: no routing, no context, no middleware chain, so a flood of
 * bad or under-scoped keys costs little more than the bare route (README, Benchmarks: (f)).
 *
 * The router, for what the front door lets in: the frame (services, request id, credential; CORS
 * on the browser surfaces, which then answers the refusals handed to it, preflights first; a body
 * of unstated size counted as it streams; the access line once answered), rate limits and metering
 * (afterGate), Idempotency-Key replay, then the routes; one error handler and one 404 for all.
 */
export function buildRoot(apps: readonly FunctionApp[], options: RootOptions): Hono<AppEnv> {
  const root = new Hono<AppEnv>();
  const { logger } = options;
  const decide = options.admit ?? admit;
  // the unread rest of the body makes the socket unusable, and Node closes it: say so, so a pooled
  // client opens a new connection instead of failing its next request
  const tooLarge = () => new ApiError(413, Detail.bodyTooLarge, { Connection: 'close' });
  // a streamed body whose sender went away (or broke the chunking) before its end: the caller's
  // doing, so a 400 in the access log and the meter rather than a 500 that would page someone
  const incomplete = (err: unknown) => {
    throw err instanceof ApiError ? err : new ApiError(400, Detail.bodyIncomplete, { Connection: 'close' });
  };
  // Only a body of unstated size is counted as it streams, by Hono's bodyLimit; a stated
  // Content-Length is the whole check (the HTTP parser holds the body to it), made by the front
  // door. Not bodyLimit for both: it first reads `c.req.raw.body`, which makes the Node adapter
  // build a full WHATWG Request and read the body through web streams, about a fifth of ticket
  // creation's server CPU (README, Benchmarks).
  const countBody = bodyLimit({
    maxSize: options.maxBodyBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  /** A request's body as its headers describe it: none (GET, HEAD), its stated length, or streamed. */
  const bodyLengthOf = (req: Request): number | 'streamed' | null => {
    if (BODYLESS.has(req.method)) return null;
    if (req.headers.has('transfer-encoding')) return 'streamed';
    const length = req.headers.get('content-length');
    return length === null ? 'streamed' : Number.parseInt(length, 10);
  };
  const cors = browserCors(options.corsOrigins);

  const frames = new WeakMap<Request, Frame>();

  // (the functions a request calls are made once, here: a closure made per request costs its
  // allocation, and under tsx, which keeps function names, an Object.defineProperty as well)
  const enter = (c: Context<AppEnv>, next: Next, frame: Frame): Promise<void> => {
    const { verdict } = frame;
    if (verdict instanceof Refused) return Promise.reject(verdict.error);
    if (verdict.scopeRefusal) return Promise.reject(forbidden(verdict.scopeRefusal));
    if (frame.streamed) return (countBody(c, next) as Promise<void>).catch(incomplete);
    return next();
  };
  root.use('*', function requestFrame(c, next) {
    const frame = frames.get(c.req.raw);
    if (!frame) throw new Error('a request reached the router without passing the front door');
    c.set('services', frame.services);
    c.set('requestId', frame.requestId);
    echoRequestIdBefore(c, frame.requestId);
    const { verdict } = frame;
    if (!(verdict instanceof Refused)) c.set('auth', verdict.auth);
    const answered = frame.browser ? cors(c, () => enter(c, next, frame)) : enter(c, next, frame);
    return answered.then(
      (res) => {
        const answer = res instanceof Response ? res : c.res;
        echoRequestIdAfter(c, frame.requestId, answer);
        logAccess(c, logger, frame.startedAt, answer.status);
        return res;
      },
      (err: unknown) => {
        // a refusal handed on, or the streamed body's; everything later was answered by onError
        // (all of them answer through handleError, whose jsonAnswer carries the request id)
        logAccess(c, logger, frame.startedAt, err instanceof ApiError ? err.status : 500);
        throw err;
      },
    );
  });
  for (const mw of options.afterGate ?? []) root.use('*', mw);
  root.use('*', idempotency());
  for (const app of apps) root.route('/', app);
  root.notFound((c) => jsonAnswer(c, { detail: Detail.notFound }, 404));
  root.onError(handleError);

  /** The pattern of the route that would have answered (the access line names a refusal by it). */
  const route = (method: string, path: string) =>
    patternOfRouterMatch(root.router.match(method === 'HEAD' ? 'GET' : method, path)[0]);
  // (the process's services live as long as it does: nothing to release after a request)
  const noRelease = () => {};
  const processServices: ProvidedServices | null =
    typeof options.provideServices === 'function'
      ? null
      : { services: options.provideServices, release: noRelease };
  const provide = options.provideServices;

  // The 403 body of each scope refusal, made once per detail (a finite set: shared/auth/access.ts).
  const scopeRefusalBodies = new Map<string, string>();
  const scopeRefusalBody = (detail: string) => {
    let body = scopeRefusalBodies.get(detail);
    if (body === undefined) {
      body = JSON.stringify({ detail });
      scopeRefusalBodies.set(detail, body);
    }
    return body;
  };

  /** Answers a refusal (or a failure to provide services) with no router, and logs it. */
  const answerHere = (
    req: Request,
    frame: Pick<Frame, 'startedAt' | 'requestId' | 'path' | 'release' | 'verdict'>,
  ) => {
    const { verdict, requestId } = frame;
    let status: number;
    let body: string;
    let headers: Record<string, string>;
    if (verdict instanceof Refused) {
      const answer = errorAnswerOf(verdict.error, { requestId, path: frame.path, logger });
      status = answer.status;
      body = JSON.stringify(answer.body);
      headers = jsonAnswerHeaders(requestId, answer.headers);
    } else {
      status = 403;
      body = scopeRefusalBody(verdict.scopeRefusal as string);
      headers = jsonAnswerHeaders(requestId);
    }
    const res = new Response(req.method === 'HEAD' ? null : body, { status, headers });
    if (logger.isLevelEnabled('info')) {
      writeAccessLine(logger, {
        method: req.method,
        route: route(req.method, frame.path),
        status,
        startedAt: frame.startedAt,
        auth: verdict instanceof Refused ? undefined : verdict.auth,
        requestId,
      });
    }
    frame.release();
    return res;
  };

  /** With the gate's verdict: a refusal off the browser surfaces is answered here, the rest routed. */
  const proceed = (
    req: Request,
    env: Parameters<typeof dispatch>[1],
    executionCtx: ExecutionContext | undefined,
    frame: Frame,
    verdict: Admission | Refused,
  ) => {
    frame.verdict = verdict;
    if (!frame.browser && (verdict instanceof Refused || verdict.scopeRefusal)) return answerHere(req, frame);
    frames.set(req, frame);
    const res = dispatch(req, env, executionCtx);
    if (res instanceof Promise) res.then(frame.release, frame.release);
    else frame.release();
    return res;
  };
  const settleRefusal = (err: unknown) => new Refused(err);

  const dispatch = root.fetch;
  root.fetch = function frontDoor(req, env, executionCtx) {
    const startedAt = requestClock();
    const requestId = requestIdFrom(req.headers.get('x-request-id') ?? undefined);
    const path = root.getPath(req, { env });
    let provided: ProvidedServices;
    try {
      provided = processServices ?? (provide as Exclude<typeof provide, Services>)(env, executionCtx);
    } catch (err) {
      return answerHere(req, { startedAt, requestId, path, release: noRelease, verdict: new Refused(err) });
    }
    const { services } = provided;
    const bodyLength = bodyLengthOf(req);
    const frame: Frame = {
      startedAt,
      requestId,
      path,
      services,
      release: provided.release,
      browser: isBrowserPath(path),
      streamed: bodyLength === 'streamed',
      verdict: UNDECIDED,
    };
    let verdict: Admission | Refused | Promise<Admission | Refused>;
    try {
      if (typeof bodyLength === 'number' && bodyLength > options.maxBodyBytes)
        verdict = new Refused(tooLarge());
      else {
        const decided = decide({ method: req.method, path, headers: req.headers, services });
        verdict = decided instanceof Promise ? decided.catch(settleRefusal) : decided;
      }
    } catch (err) {
      verdict = new Refused(err);
    }
    // (no closure for the common case: a warm key's verdict is at hand)
    if (!(verdict instanceof Promise)) return proceed(req, env, executionCtx, frame, verdict);
    return verdict.then((v) => proceed(req, env, executionCtx, frame, v));
  };
  return root;
}
