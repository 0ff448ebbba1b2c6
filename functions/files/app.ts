import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { downloadHandler } from '../../shared/files/handlers';
import { register } from '../../shared/http/route';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** GET /api/v1/files/{file_id}: a signed link's bytes (shared/files/handlers.ts). */
register(app, routes.downloadFile, downloadHandler);
