import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The route pattern that answers a request (`/api/v1/tickets/:id`), or would have, had the gate
 * let it through: the last matched route registered for a method. Middleware (`use`) is registered
 * for ALL methods, so it is skipped. `null` when no route matched (a 404). The access log and the
 * usage meter both name requests by it, so lines and usage rows group by endpoint and carry no ids
 * or query strings.
 */
export function routePatternOf(c: Context): string | null {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route && route.method !== 'ALL') return route.path;
  }
  return null;
}
