import { Hono } from 'hono';
import type { AppEnv } from '../../shared/context/app-env';
import { register } from '../../shared/http/route';
import { pingDatabase } from './data';
import * as routes from './routes';

export const app = new Hono<AppEnv>();

/** GET /api/v2/health: 200 with the database's state, credential or not. 503 when the database is down. */
register(app, routes.getHealth, async (c) => {
  const { db, runtime } = c.get('services');
  const started = performance.now();
  try {
    await pingDatabase(db);
    const latency_ms = Math.round((performance.now() - started) * 100) / 100;
    return c.json({
      status: 'ok',
      runtime,
      database: { status: 'ok', latency_ms },
      time: new Date().toISOString(),
    });
  } catch (err) {
    return c.json(
      {
        status: 'degraded',
        runtime,
        database: { status: 'unavailable', error: String((err as Error).message ?? err) },
        time: new Date().toISOString(),
      },
      503,
    );
  }
});
