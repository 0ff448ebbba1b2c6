import type { Context, MiddlewareHandler } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { AppEnv, FunctionApp } from '../context/app-env';
import { Detail } from '../http/errors';
import { jsonAnswer } from '../http/response-headers';

// The answer when no route serves the request's method and path, past the gate (so an unknown path
// still meets the spec's 401 and 403 first): 405 with `Allow` naming what the path serves (GET
// implies HEAD) when some route serves it with another method, else 404. Which methods a path
// serves is Hono's own middleware's finding (hono/method-not-allowed); the answers are ours, in
// the error shape.

/** The methods a route can be declared with, in the order an `Allow` header lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The 404 of a path no route serves (Hono's `notFound` hook). */
export function answerUnrouted(c: Context<AppEnv>): Response {
  return jsonAnswer(c, { detail: Detail.notFound }, 404);
}

/** Turns that 404 into the 405 when the path is served with other methods; runs just before the routes. */
export function methodRefusal(root: FunctionApp): MiddlewareHandler<AppEnv> {
  return methodNotAllowed({
    app: root,
    onMethodNotAllowed(c, methods) {
      // (cleared first: Hono copies the headers of the answer it replaces into the new one)
      c.res = undefined;
      const allow = METHODS.filter((m) => methods.includes(m)).join(', ');
      return jsonAnswer(c, { detail: Detail.methodNotAllowed }, 405, { Allow: allow });
    },
  });
}
