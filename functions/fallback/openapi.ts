import { defineRoutes } from '../../shared/http/openapi';

/** The fallback function has no routes of its own: unrouted `/api/*` paths answer 401/403/404. */
export const routes = defineRoutes([]);
