// A server process for the revocation tests that must see inside the key cache: the embedded
// runtime exactly as `npm start` builds it, plus `GET /__key-cache` answering the cache's counted
// lookups (`misses`: each one a key read from the database), so a test can tell a request served
// from the cache from one that looked the key up. Hits are never confirmed by the key's row: what
// makes a revoke answered by another process bite here is the notice the revoke sends (or the
// schema trigger's NOTIFY) that `followKeyChanges` hears, and the lease that stands the cache
// aside when this process cannot hear them. KEY_CACHE_UNCONFIRMED=1 asserts the process runs on
// Postgres, where that is so.
import { serve } from '@hono/node-server';
import { createEmbeddedRuntime } from '../../scripts/embedded';
import { loadConfig } from '../../shared/env';

const config = loadConfig(process.env);
const runtime = await createEmbeddedRuntime({ config });
const { services, handle } = runtime;
if (process.env.KEY_CACHE_UNCONFIRMED === '1' && (handle.kind !== 'postgres' || !handle.writes))
  throw new Error('KEY_CACHE_UNCONFIRMED needs Postgres');
const server = serve(
  {
    port: Number(process.env.PORT),
    hostname: '127.0.0.1',
    fetch: (req) =>
      new URL(req.url).pathname === '/__key-cache'
        ? Response.json({ misses: services.keyCache?.misses ?? null })
        : runtime.app.fetch(req),
  },
  // the line startServer waits for, as scripts/serve.ts prints it
  (info) => console.log(`Key cache process listening on http://127.0.0.1:${info.port}`),
);
const stop = async () => {
  server.close();
  await runtime.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
