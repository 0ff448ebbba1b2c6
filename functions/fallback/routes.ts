import type { RouteDef } from '../../shared/http/route';

/** The fallback function has no routes of its own: unrouted `/api/*` paths answer 401/403/404. */
export const routes: readonly RouteDef[] = [];
