import type { ExecutionContext } from 'hono';
import type { AccessTable } from '../auth/access';
import { type Admission, admit, type GateRequest } from '../auth/gate';
import type { Services } from '../context/services';
import { isBrowserPath } from '../http/cors';
import { requestIdFrom } from '../ids';
import { requestClock } from './access-log';
import { bodyLengthOf, isRawUpload, tooLarge } from './body-size';
import type { Hold } from './speculation';

/** A request's services, and what to do once it is answered (Workers: close its database handle). */
export interface ProvidedServices {
  services: Services;
  release(): void;
  /**
   * Puts the services on hold for a provisional run (./speculation.ts); absent where a request
   * cannot run before its key is confirmed (it then waits for the confirmation)
   */
  hold?(confirmed: Promise<boolean>): Hold;
}

/**
 * The `services` variable, the only runtime-specific piece: one object for the whole process
 * (Node), or a function that builds them for one request (Workers), released once it is answered.
 */
export type ServicesProvider =
  | Services
  | ((env: unknown, executionCtx: ExecutionContext | undefined) => ProvidedServices);

/**
 * What the front door decided about one request before any route: the one contract between the
 * front door and what answers the request (the door itself for a refusal, else the router).
 */
export interface Entry {
  startedAt: number;
  /** the caller's X-Request-Id, else a new one (shared/ids.ts) */
  requestId: string;
  path: string;
  /** absent only when they could not be provided: that entry is refused, and answered at the door */
  services: Services | undefined;
  /** once answered (Workers: close the request's database handle) */
  release: () => void;
  /** a browser surface: CORS runs first, and the router answers the entry's refusal */
  browser: boolean;
  /** a body of unstated size (chunked, or no Content-Length): the router counts it as it streams */
  streamed: boolean;
  /** the gate's verdict (the caller; a scope refusal's 403 detail), or null when refused before it */
  admission: Admission | null;
  /** what refused the request before the gate's verdict (the body's stated size, the gate's throw) */
  error: unknown;
  /** the services' hold for a provisional run, where the runtime offers one */
  hold?: ProvidedServices['hold'];
  /**
   * a provisional run: the router leaves its access line here instead of writing it, for the front
   * door to write if the run's answer is the one sent
   */
  provisional?: { accessLine?: () => void };
}

export const isRefused = (entry: Entry): boolean =>
  entry.admission === null || entry.admission.scopeRefusal !== undefined;

export interface FrontDoorOptions {
  provideServices: ServicesProvider;
  maxBodyBytes: number;
  /** the cap of a raw file upload's body (ATTACHMENT_MAX_BYTES); default maxBodyBytes */
  uploadMaxBytes?: number;
  /** who may call which path (the gate's tables) */
  access: AccessTable;
  /** the path as the router reads it */
  pathOf(req: Request, env: unknown): string;
  /** replaces the auth gate: only the benchmark's "auth bypassed" comparison uses it */
  admit?: (req: GateRequest) => Admission | Promise<Admission>;
}

// (the process's services live as long as it does: nothing to release after a request)
const noRelease = () => {};

/**
 * The front door: the request id, the services, a stated body size over the limit (413) and the
 * auth gate (shared/auth/gate.ts), decided before the router into one Entry. A warm key's entry is
 * at hand without a promise.
 */
export function frontDoor(options: FrontDoorOptions) {
  const decide = options.admit ?? admit;
  const provide = options.provideServices;
  const { access } = options;
  const processServices: ProvidedServices | null =
    typeof provide === 'function' ? null : { services: provide, release: noRelease };
  const admitted = (entry: Entry, admission: Admission) => {
    entry.admission = admission;
    return entry;
  };
  const refused = (entry: Entry, error: unknown) => {
    entry.error = error;
    return entry;
  };

  return function enterFrontDoor(req: Request, env: unknown, ctx: ExecutionContext | undefined) {
    const entry: Entry = {
      startedAt: requestClock(),
      requestId: requestIdFrom(req.headers.get('x-request-id') ?? undefined),
      path: options.pathOf(req, env),
      services: undefined,
      release: noRelease,
      browser: false,
      streamed: false,
      admission: null,
      error: undefined,
    };
    let provided: ProvidedServices;
    try {
      provided = processServices ?? (provide as Exclude<ServicesProvider, Services>)(env, ctx);
    } catch (err) {
      return refused(entry, err);
    }
    const { services } = provided;
    entry.services = services;
    entry.release = provided.release;
    if (provided.hold) entry.hold = provided.hold;
    entry.browser = isBrowserPath(entry.path);
    const bodyLength = bodyLengthOf(req);
    const upload = bodyLength !== null && isRawUpload(req.method, entry.path);
    // an upload's handler counts its streamed body itself (shared/files/upload.ts)
    entry.streamed = bodyLength === 'streamed' && !upload;
    const cap = upload ? (options.uploadMaxBytes ?? options.maxBodyBytes) : options.maxBodyBytes;
    if (typeof bodyLength === 'number' && bodyLength > cap) return refused(entry, tooLarge());
    let decided: Admission | Promise<Admission>;
    try {
      decided = decide({ method: req.method, path: entry.path, headers: req.headers, services, access });
    } catch (err) {
      return refused(entry, err);
    }
    if (!(decided instanceof Promise)) return admitted(entry, decided);
    return decided.then(
      (admission) => admitted(entry, admission),
      (err: unknown) => refused(entry, err),
    );
  };
}
