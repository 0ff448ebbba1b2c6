import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/** A route as Hono's router reports a match: how it was registered. */
interface MatchedRoute {
  method: string;
  path: string;
}

/**
 * The route pattern that answers a request (`/api/v1/tickets/:id`), or would have, had the gate
 * let it through: the last matched route registered for a method. Middleware (`use`) is registered
 * for ALL methods, so it is skipped. `null` when no route matched (a 404). The access log and the
 * usage meter both name requests by it, so lines and usage rows group by endpoint and carry no ids
 * or query strings.
 */
export function routePatternOf(c: Context): string | null {
  return patternOfMatch(matchedRoutes(c));
}

/** The same, from a router's match (where no context is at hand). */
export function patternOfMatch(routes: readonly (MatchedRoute | undefined)[]): string | null {
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route && route.method !== 'ALL') return route.path;
  }
  return null;
}

/** One match of Hono's router: the handler with the route it was registered by, and its params. */
type RouterMatchEntry = readonly [readonly [unknown, MatchedRoute], unknown];

/**
 * The pattern of a router's match (`root.router.match(method, path)[0]`), remembered per match: the
 * router hands out the same array for every request to a route (its static table, or the handler
 * list of a dynamic route), so a flood of one refusal maps it and walks it once. (Were an array new
 * each time, it would only be worked out again.)
 */
const patternsByMatch = new WeakMap<readonly RouterMatchEntry[], string | null>();
export function patternOfRouterMatch(matched: readonly RouterMatchEntry[]): string | null {
  if (matched.length === 0) return null;
  let pattern = patternsByMatch.get(matched);
  if (pattern === undefined) {
    pattern = patternOfMatch(matched.map(([[, route]]) => route));
    patternsByMatch.set(matched, pattern);
  }
  return pattern;
}
