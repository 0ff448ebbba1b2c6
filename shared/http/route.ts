import { zValidator } from '@hono/zod-validator';
import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { ZodType, z } from 'zod';
import type { AppEnv } from '../context/app-env';
import { inputGuard } from './input';
import type { RouteDef } from './openapi';
import { roleGuard } from './role-guard';
import { parseFast, type Target, toSpecShape } from './validation';

/** Every declared route, by the order of its declaration (module evaluation order). */
const declared = new WeakMap<object, number>();
let nextOrder = 0;

/**
 * Declares a route, keeping the literal schema types (so `c.req.valid(...)` in the handler is
 * typed). The declaration is all there is of it: `register` serves it, and `routesOf` finds it
 * among its module's exports for the OpenAPI documents, the fuzz and the access tests.
 */
export const defineRoute = <R extends RouteDef>(route: R): R => {
  declared.set(route, nextOrder++);
  return route;
};

/** Whether `value` is a route `defineRoute` declared. */
export const isRoute = (value: unknown): value is RouteDef =>
  typeof value === 'object' && value !== null && declared.has(value);

/** A list or a plain object: where a module may keep a table of routes (never a schema or a class). */
const isTable = (value: unknown): value is object =>
  Array.isArray(value) ||
  (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype);

/**
 * The routes a module declares: its exported routes, and those in exported tables of routes
 * (objects and lists, as config's sections), in the order they were declared.
 */
export function routesOf(module: Record<string, unknown>): RouteDef[] {
  const found = new Set<RouteDef>();
  const visit = (value: unknown, depth: number): void => {
    if (isRoute(value)) found.add(value);
    else if (depth < 4 && isTable(value)) for (const inner of Object.values(value)) visit(inner, depth + 1);
  };
  for (const value of Object.values(module)) visit(value, 0);
  return [...found].sort((a, b) => (declared.get(a) ?? 0) - (declared.get(b) ?? 0));
}

/** `/api/v1/tickets/{ticket_id}` (OpenAPI) -> `/api/v1/tickets/:ticket_id` (Hono) */
export const toHonoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

export type { RouteDef };

// biome-ignore-start lint/complexity/noBannedTypes: `{}` is the identity of an intersection of object types
type ValidatedOf<R> = (R extends { params: infer P extends ZodType } ? { param: z.output<P> } : {}) &
  (R extends { query: infer Q extends ZodType } ? { query: z.output<Q> } : {}) &
  (R extends { body: infer B extends ZodType } ? { json: z.output<B> } : {});

/** What a route's handler reads with `c.req.valid(target)`. */
export type RouteInput<R> = { in: {}; out: ValidatedOf<R> };
// biome-ignore-end lint/complexity/noBannedTypes: -

export type RouteHandler<R extends RouteDef> = Handler<AppEnv, string, RouteInput<R>>;

/**
 * A handler typed by a route's schemas alone (params, query, body), so one function can serve two
 * declarations that share them, e.g. a v1 route and its v2 twin, whose access differs.
 */
export type HandlerOf<R extends RouteDef> = RouteHandler<
  RouteDef & Pick<R, Extract<keyof R, 'params' | 'query' | 'body'>>
>;

/** Each target a route may declare a schema for, in the order they are checked. */
const TARGETS = [
  ['param', 'params'],
  ['query', 'query'],
  ['json', 'body'],
] as const satisfies readonly (readonly [Target, keyof RouteDef])[];

/**
 * One target's validation: what zod cannot see refused in front (shared/http/input.ts), then
 * `zValidator` with the one hook that answers the spec's 422 (shared/http/validation.ts).
 */
const validation = (target: Target, schema: ZodType): MiddlewareHandler<AppEnv>[] => [
  inputGuard(target),
  zValidator(target, schema, toSpecShape, { validationFunction: parseFast }) as MiddlewareHandler<AppEnv>,
];

/**
 * Serves `route` on `app`: its role (for dashboard sessions), then its path, query and body
 * validated (422 in the spec's shape), then `handler`: `register(app, getTicket, async (c) => …)`.
 */
export function register<R extends RouteDef>(app: Hono<AppEnv>, route: R, handler: RouteHandler<R>): void {
  const chain: MiddlewareHandler<AppEnv>[] = route.access?.role ? [roleGuard(route.access.role)] : [];
  for (const [target, field] of TARGETS) {
    const schema = route[field];
    if (schema) chain.push(...validation(target, schema));
  }
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
