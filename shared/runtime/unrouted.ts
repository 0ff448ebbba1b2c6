import type { Context } from 'hono';
import type { AppEnv, FunctionApp } from '../context/app-env';
import { Detail } from '../http/errors';
import { jsonAnswer } from '../http/response-headers';
import { patternOfRouterMatch } from '../http/route-pattern';

/** The methods a route can be declared with, in the order an `Allow` header lists them. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The answer when no route serves the request's method and path, past the gate (so an unknown path
 * still meets the spec's 401 and 403 first): 405 with `Allow` naming what the path serves (GET
 * implies HEAD) when some route serves it with another method, else 404. (Hono calls the hook this
 * is given to `notFound`; in this code base `notFound` is only the handler's 404 of shared/http/errors.ts.)
 */
export function unroutedAnswer(root: FunctionApp) {
  const allowedOn = (path: string): string[] => {
    const allowed: string[] = [];
    for (const method of METHODS) {
      if (patternOfRouterMatch(root.router.match(method, path)[0]) === null) continue;
      allowed.push(method);
      if (method === 'GET') allowed.push('HEAD');
    }
    return allowed;
  };
  return function answerUnrouted(c: Context<AppEnv>): Response {
    const allowed = allowedOn(c.req.path);
    if (allowed.length === 0) return jsonAnswer(c, { detail: Detail.notFound }, 404);
    return jsonAnswer(c, { detail: Detail.methodNotAllowed }, 405, { Allow: allowed.join(', ') });
  };
}
