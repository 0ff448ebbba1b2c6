import { errorAnswerOf } from '../http/errors';
import { jsonAnswerHeaders } from '../http/response-headers';
import type { Logger } from '../log/logger';
import { writeAccessLine } from './access-log';
import type { Entry } from './front-door';

/** The 403 body of each scope refusal, made once per detail (a finite set: shared/auth/access.ts). */
const scopeRefusalBodies = new Map<string, string>();
function scopeRefusalBody(detail: string): string {
  let body = scopeRefusalBodies.get(detail);
  if (body === undefined) {
    body = JSON.stringify({ detail });
    scopeRefusalBodies.set(detail, body);
  }
  return body;
}

/** The status, body and headers of a refused entry, in the shape every error answers in. */
function refusalOf(entry: Entry, logger: Logger) {
  const { admission, requestId } = entry;
  if (admission?.scopeRefusal !== undefined)
    return {
      status: 403,
      body: scopeRefusalBody(admission.scopeRefusal),
      headers: jsonAnswerHeaders(requestId),
    };
  const answer = errorAnswerOf(entry.error, { requestId, path: entry.path, logger });
  return {
    status: answer.status,
    body: JSON.stringify(answer.body),
    headers: jsonAnswerHeaders(requestId, answer.headers),
  };
}

/**
 * Answers a refused entry off the browser surfaces right at the door, as JSON with the request id,
 * and writes its access line: no routing, no context, no middleware chain, so a flood of bad or
 * under-scoped keys costs little more than the bare route. `routeOf` names the route that would
 * have answered, for the access line.
 */
export function doorAnswerer(logger: Logger, routeOf: (method: string, path: string) => string | null) {
  return function answerAtDoor(req: Request, entry: Entry): Response {
    const { status, body, headers } = refusalOf(entry, logger);
    const res = new Response(req.method === 'HEAD' ? null : body, { status, headers });
    if (logger.isLevelEnabled('info')) {
      writeAccessLine(logger, {
        method: req.method,
        route: routeOf(req.method, entry.path),
        status,
        startedAt: entry.startedAt,
        auth: entry.admission?.auth,
        requestId: entry.requestId,
      });
    }
    entry.release();
    return res;
  };
}
