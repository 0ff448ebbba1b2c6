import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { ZodType, z } from 'zod';
import type { AppEnv } from '../context/app-env';
import type { RouteDef } from './openapi';
import { roleGuard } from './role-guard';
import { validate } from './validation';

/** Keeps the literal schema types, so `c.req.valid(...)` in the handler is typed. */
export const defineRoute = <R extends RouteDef>(route: R): R => route;

/** `/api/v1/tickets/{ticket_id}` (OpenAPI) -> `/api/v1/tickets/:ticket_id` (Hono) */
export const toHonoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

export type { RouteDef };

// biome-ignore-start lint/complexity/noBannedTypes: `{}` is the identity of an intersection of object types
type ValidatedOf<R> = (R extends { params: infer P extends ZodType } ? { param: z.output<P> } : {}) &
  (R extends { query: infer Q extends ZodType } ? { query: z.output<Q> } : {}) &
  (R extends { rawBody: true }
    ? {}
    : R extends { body: infer B extends ZodType }
      ? { json: z.output<B> }
      : {});

/** What a route's handler reads with `c.req.valid(target)`. */
export type RouteInput<R> = { in: {}; out: ValidatedOf<R> };
// biome-ignore-end lint/complexity/noBannedTypes: -

export type RouteHandler<R extends RouteDef> = Handler<AppEnv, string, RouteInput<R>>;

/**
 * A handler typed by a route's schemas alone (params, query, body), so one function can serve two
 * declarations that share them, e.g. a v1 route and its v2 twin, whose access differs.
 */
export type HandlerOf<R extends RouteDef> = RouteHandler<
  RouteDef & Pick<R, Extract<keyof R, 'params' | 'query' | 'body' | 'rawBody'>>
>;

/**
 * Serves `route` on `app`: its role (for dashboard sessions), then its path, query and body
 * validated (422 in the spec's shape), then `handler`: `register(app, routes.getTicket, async (c) => …)`.
 */
export function register<R extends RouteDef>(app: Hono<AppEnv>, route: R, handler: RouteHandler<R>): void {
  const chain: MiddlewareHandler<AppEnv>[] = [];
  if (route.access?.role) chain.push(roleGuard(route.access.role));
  if (route.params) chain.push(validate('param', route.params) as MiddlewareHandler<AppEnv>);
  if (route.query) chain.push(validate('query', route.query) as MiddlewareHandler<AppEnv>);
  if (route.body && !route.rawBody) chain.push(validate('json', route.body) as MiddlewareHandler<AppEnv>);
  // Hono's overloads type each position of a literal chain; this one is built, so one plain signature
  const on = app.on.bind(app) as unknown as (
    method: string,
    path: string,
    ...h: MiddlewareHandler<AppEnv>[]
  ) => void;
  on(
    route.method.toUpperCase(),
    toHonoPath(route.path),
    ...chain,
    handler as unknown as MiddlewareHandler<AppEnv>,
  );
}
