import type { Context, MiddlewareHandler, Next } from 'hono';
import type { AppEnv } from '../context/app-env';
import { browserCors } from '../http/cors';
import { ApiError, forbidden } from '../http/errors';
import { echoRequestIdAfter, echoRequestIdBefore } from '../http/response-headers';
import type { Logger } from '../log/logger';
import { logAccess } from './access-log';
import { streamedBodyCounter } from './body-size';
import type { Entry } from './front-door';

export interface RouterEntryOptions {
  /** the entry the front door decided for each request it let into the router */
  entryOf(req: Request): Entry | undefined;
  logger: Logger;
  corsOrigins: '*' | readonly string[];
  maxBodyBytes: number;
}

/**
 * The router's first middleware: puts the front door's entry into the context (services, request
 * id, credential); on the browser surfaces runs CORS, which answers preflights, then the refusal the
 * door handed on; counts a body of unstated size as it streams; and writes the access line once
 * the request is answered. Every later answer (onError, notFound) carries the request id.
 */
export function enterRouter(options: RouterEntryOptions): MiddlewareHandler<AppEnv> {
  const { logger, entryOf } = options;
  const cors = browserCors(options.corsOrigins);
  const countBody = streamedBodyCounter(options.maxBodyBytes);
  // (the functions a request calls are made once, here: a closure made per request costs its
  // allocation, and under tsx, which keeps function names, an Object.defineProperty as well)
  const pass = (c: Context<AppEnv>, next: Next, entry: Entry): Promise<void> => {
    const { admission } = entry;
    if (admission === null) return Promise.reject(entry.error);
    if (admission.scopeRefusal !== undefined) return Promise.reject(forbidden(admission.scopeRefusal));
    return entry.streamed ? countBody(c, next) : next();
  };
  return function requestEntry(c, next) {
    const entry = entryOf(c.req.raw);
    if (!entry) throw new Error('a request reached the router without passing the front door');
    if (entry.services) c.set('services', entry.services);
    c.set('requestId', entry.requestId);
    echoRequestIdBefore(c, entry.requestId);
    if (entry.admission) c.set('auth', entry.admission.auth);
    const answered = entry.browser ? cors(c, () => pass(c, next, entry)) : pass(c, next, entry);
    return answered.then(
      (res) => {
        const answer = res instanceof Response ? res : c.res;
        echoRequestIdAfter(c, entry.requestId, answer);
        if (entry.provisional)
          entry.provisional.accessLine = () => logAccess(c, logger, entry.startedAt, answer.status);
        else logAccess(c, logger, entry.startedAt, answer.status);
        return res;
      },
      (err: unknown) => {
        // a refusal handed on, or the streamed body's; everything later was answered by onError
        // (all of them answer through handleError, whose jsonAnswer carries the request id)
        if (!entry.provisional)
          logAccess(c, logger, entry.startedAt, err instanceof ApiError ? err.status : 500);
        throw err;
      },
    );
  };
}
