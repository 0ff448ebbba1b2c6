import { Hono } from 'hono';
import type { AppEnv } from '../../shared/runtime/app-env';

// Not built yet: this function's routes land with its issue. Until then its paths answer the
// gate's 401/403 and the root's 404.
export const app = new Hono<AppEnv>();
