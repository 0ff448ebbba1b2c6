import { Hono } from 'hono';
import { tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import { cursorEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import { listAuditEntries } from './data';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** The tenant's key and webhook management history, newest first (tenant admins: the route's role). */
register(app, routes.listAuditLog, async (c) => {
  const q = c.req.valid('query');
  const page = await listAuditEntries(c.get('services').db, tenantOf(c), q);
  return c.json(cursorEnvelope('entries', page.rows, page, q));
});
