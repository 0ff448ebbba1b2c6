import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';

/**
 * Owns every `/api/*` path no other function routes. It has no routes of its own: the shared gate
 * answers 401/403 by the spec's rules, and the root's notFound answers 404 `{"detail": "Not Found"}`.
 */
export const app = new Hono<AppEnv>();
