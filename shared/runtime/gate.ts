import type { Context, ExecutionContext, MiddlewareHandler, Next } from 'hono';
import type { AccessTable } from '../auth/access';
import { type Admission, admit, type GateRequest } from '../auth/gate';
import type { AppEnv } from '../context/app-env';
import type { Credential } from '../context/credential';
import type { Services } from '../context/services';
import { browserCors, isBrowserPath } from '../http/cors';
import { ApiError, forbidden } from '../http/errors';
import { echoRequestIdAfter, echoRequestIdBefore } from '../http/response-headers';
import { requestIdFrom } from '../ids';
import type { Logger } from '../log/logger';
import { logAccess, requestClock } from './access-log';
import {
  bodyCapOf,
  bodyLengthOf,
  contentCoded,
  isContentCoded,
  isRawUpload,
  streamedBodyCounter,
  tooLarge,
} from './body-size';

/** What the speculation (./shortcuts.ts) does with a speculative run once the check has answered. */
export interface Speculation {
  /** the run tried to write: it must run again on the check's verdict */
  readonly wrote: boolean;
  /** its answer is sent: its deferred tasks run */
  keep(): void;
  /** its answer is dropped: its deferred tasks never run; the services are the request's own again */
  drop(): void;
}

/** A request's services, and what to do once it is answered (Workers: close its database handle). */
export interface ProvidedServices {
  services: Services;
  release(): void;
  /**
   * Runs the services speculatively, until `confirmed` settles (./shortcuts.ts); absent where a
   * request cannot run before its key's check has answered (it then waits for the check)
   */
  speculate?(confirmed: Promise<boolean>): Speculation;
}

/**
 * The `services` variable, the only runtime-specific piece: one object for the whole process
 * (Node), or a function that builds them for one request (Workers), released once it is answered.
 */
export type ServicesProvider =
  | Services
  | ((env: unknown, executionCtx: ExecutionContext | undefined) => ProvidedServices);

/**
 * What the gate decided about a request (the `verdict` variable): the one thing the middleware
 * after it read of the gate. `admitted()` enforces it; the shortcuts (./shortcuts.ts) may answer it
 * sooner.
 */
export interface Verdict {
  /** the caller (and a scope refusal's 403 detail), or null when refused before a verdict */
  admission: Admission | null;
  /** what refused the request when `admission` is null (the body's stated size, the gate's throw) */
  error: unknown;
  /** a browser surface: CORS has run, and answers the refusal too */
  browser: boolean;
  /** the services' speculative mode, where the runtime offers one */
  speculate?: ProvidedServices['speculate'];
}

/**
 * The gate's verdict lives in a context variable of the chain's own: a function's app (AppEnv)
 * never reads it, only the chain's middleware, through these two.
 */
type VerdictContext = Context<{ Variables: { verdict: Verdict } }>;
export const verdictOf = (c: Context<AppEnv>): Verdict => (c as unknown as VerdictContext).get('verdict');
export const setVerdict = (c: Context<AppEnv>, verdict: Verdict) =>
  (c as unknown as VerdictContext).set('verdict', verdict);

export interface GateOptions {
  provideServices: ServicesProvider;
  maxBodyBytes: number;
  /** the cap of a raw file upload's body (ATTACHMENT_MAX_BYTES); default maxBodyBytes */
  uploadMaxBytes?: number | undefined;
  /** who may call which path (the gate's tables) */
  access: AccessTable;
  /** where the access log goes: the logger the services hold */
  logger: Logger;
  /** CORS_ALLOWED_ORIGINS: who may call the browser surfaces (shared/http/cors.ts) */
  corsOrigins: '*' | readonly string[];
  /**
   * the share middleware's claim on a tenant's database share (shared/ratelimit/db-share.ts), taken
   * in a keyed request's key read; absent: the middleware acquires it itself
   */
  claimShare?: GateRequest['claimShare'];
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  admit?: (req: GateRequest) => Admission | Promise<Admission>;
}

/**
 * A request dispatched through the chain again with its verdict already reached (the speculation's
 * rerun, ./shortcuts.ts): handed in Hono's `env` argument, so the gate takes it instead of asking the
 * services and the credential again, and leaves the access line and the release to the first pass.
 */
const DECIDED = Symbol('decided');
interface Decided {
  services: Services;
  requestId: string;
  verdict: Verdict;
}

/** The `env` of a dispatch that carries its verdict (the bindings stay readable through it). */
export function decidedEnv(c: Context<AppEnv>, verdict: Verdict): unknown {
  const decided: Decided = { services: c.get('services'), requestId: c.get('requestId') as string, verdict };
  return Object.create((c.env as object | undefined) ?? null, { [DECIDED]: { value: decided } });
}

/** The request's ExecutionContext, where the runtime has one (Hono's getter throws otherwise). */
export function executionCtxOf(c: Context): ExecutionContext | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

// (the process's services live as long as it does: nothing to release after a request)
const noRelease = () => {};

/**
 * The chain's first middleware: the request id, the services, a stated body size over the limit
 * (413) and the credential (shared/auth/gate.ts: which credential the path takes, API-key scopes
 * from the access rules), decided into the `verdict` variable. On the browser surfaces it runs CORS
 * (which answers preflights) around the rest; it counts a body of unstated size as it streams; and
 * once the request is answered it writes the access line and releases the services. It refuses
 * nothing itself: `admitted()` does, after the optional shortcuts.
 */
export function gate(options: GateOptions): MiddlewareHandler<AppEnv> {
  const decide = options.admit ?? admit;
  const provide = options.provideServices;
  const { access, logger, maxBodyBytes } = options;
  const processServices: ProvidedServices | null =
    typeof provide === 'function' ? null : { services: provide, release: noRelease };
  const cors = browserCors(options.corsOrigins);
  const caps = { json: maxBodyBytes, upload: options.uploadMaxBytes ?? maxBodyBytes };
  // one counter per cap (MAX_BODY_BYTES, and the larger one of messages carrying files)
  const counters = new Map<number, ReturnType<typeof streamedBodyCounter>>();
  const counterOf = (cap: number) => {
    const known = counters.get(cap);
    if (known) return known;
    const counter = streamedBodyCounter(cap);
    counters.set(cap, counter);
    return counter;
  };

  const enter = (c: Context<AppEnv>, next: Next, verdict: Verdict, streamed: number | null) => {
    setVerdict(c, verdict);
    if (verdict.admission) c.set('auth', verdict.admission.auth);
    const pass = streamed !== null ? () => counterOf(streamed)(c, next) : next;
    return verdict.browser ? (cors(c, pass) as Promise<Response | undefined>) : pass();
  };

  return async function credentialGate(c, next) {
    const decided = (c.env as { [DECIDED]?: Decided } | undefined)?.[DECIDED];
    if (decided) {
      c.set('services', decided.services);
      c.set('requestId', decided.requestId);
      echoRequestIdBefore(c, decided.requestId);
      return enter(c, next, decided.verdict, null);
    }
    const startedAt = requestClock();
    const requestId = requestIdFrom(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    echoRequestIdBefore(c, requestId);
    const path = c.req.path;
    const verdict: Verdict = { admission: null, error: undefined, browser: isBrowserPath(path) };
    let release = noRelease;
    // the cap a body of unstated size is counted against, when the router counts it
    let streamed: number | null = null;
    try {
      const provided =
        processServices ?? (provide as Exclude<ServicesProvider, Services>)(c.env, executionCtxOf(c));
      c.set('services', provided.services);
      release = provided.release;
      if (provided.speculate) verdict.speculate = provided.speculate;
      const req = c.req.raw;
      const bodyLength = bodyLengthOf(req);
      const upload = bodyLength !== null && isRawUpload(req.method, path);
      const cap = bodyCapOf(req.method, path, caps);
      // an upload's handler counts its streamed body itself (shared/files/upload.ts)
      if (bodyLength === 'streamed' && !upload) streamed = cap;
      if (typeof bodyLength === 'number' && bodyLength > cap) throw tooLarge();
      if (isContentCoded(req)) throw contentCoded();
      const admission = decide({
        method: req.method,
        path,
        headers: req.headers,
        services: provided.services,
        access,
        url: req.url,
        claimShare: options.claimShare,
      });
      verdict.admission = admission instanceof Promise ? await admission : admission;
    } catch (err) {
      verdict.error = err;
    }
    try {
      // (a body of unstated size is read only for a caller the gate lets in)
      const admittedCaller = verdict.admission !== null && verdict.admission.scopeRefusal === undefined;
      const answered = await enter(c, next, verdict, admittedCaller ? streamed : null);
      const res = answered instanceof Response ? answered : c.res;
      echoRequestIdAfter(c, requestId, res);
      logAccess(c, logger, startedAt, res.status);
      // a preflight's 204 is CORS's own answer, not yet the context's
      return answered instanceof Response ? answered : undefined;
    } catch (err) {
      // the streamed body's refusal; everything later was answered by onError already
      logAccess(c, logger, startedAt, err instanceof ApiError ? err.status : 500);
      throw err;
    } finally {
      giveBackShare(c);
      release();
    }
  };
}

/**
 * A share the key's round trip took for a request answered before the share middleware held it
 * (a scope's 403, a streamed body's 413) is given back at once, not left to its lease.
 */
function giveBackShare(c: Context<AppEnv>) {
  const auth = c.get('auth') as Credential | undefined;
  if (auth?.kind !== 'api_key' || !auth.share) return;
  const { share } = auth;
  if (!(share instanceof Promise)) {
    if (share.taken || !share.admitted) return;
    share.taken = true;
    c.get('services').defer(() => share.release());
    return;
  }
  c.get('services').defer(async () => {
    const held = await share;
    if (!held || held.taken || !held.admitted) return;
    held.taken = true;
    await held.release();
  });
}

/** Forgets the credential the gate named, for a request its key's check refused. */
export const forgetCredential = (c: Context<AppEnv>) => c.set('auth', undefined as unknown as Credential);

/**
 * Enforces the gate's verdict, after the optional shortcuts and before everything that needs a
 * caller (rate limits, metering, routes): a refusal is thrown (onError answers it); a speculative
 * admission nothing ran on waits for its key's check, as a cold key does.
 */
export function admitted(): MiddlewareHandler<AppEnv> {
  return async function enforceVerdict(c, next) {
    const verdict = verdictOf(c);
    let { admission } = verdict;
    if (admission?.check) {
      try {
        admission = await admission.check;
      } catch (err) {
        forgetCredential(c);
        throw err;
      }
      c.set('auth', admission.auth);
    }
    if (admission === null) throw verdict.error;
    if (admission.scopeRefusal !== undefined) throw forbidden(admission.scopeRefusal);
    await next();
  };
}
