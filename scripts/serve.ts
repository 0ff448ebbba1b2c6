// `npm start`: the embedded runtime on PORT/HOST (default 127.0.0.1:8787).
import { serve } from '@hono/node-server';
import { defaultedSecrets, loadConfig } from '../shared/env';
import { answerClientErrors } from '../shared/runtime/client-errors.node.js';
import { createEmbeddedRuntime } from './embedded';
import { DEMO_ADMIN, seedDemoAdmin, seedDemoTenant } from './seed';

const config = loadConfig(process.env);
const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';

const runtime = await createEmbeddedRuntime({ config });
const demo = await seedDemoTenant(runtime.services.db);
// a known password is for development only: elsewhere the demo admin exists only if one is given
const demoPassword =
  process.env.DEMO_ADMIN_PASSWORD ||
  (config.APP_ENV === 'development' || config.APP_ENV === 'test' ? DEMO_ADMIN.devPassword : undefined);
const demoAdmin = demoPassword ? await seedDemoAdmin(runtime.services.db, demoPassword) : null;

const server = serve({ fetch: runtime.app.fetch, port, hostname: host }, (info) => {
  const url = `http://${host}:${info.port}`;
  const db = config.DATABASE_URL ? 'Postgres (DATABASE_URL)' : `PGlite in ${config.DATA_DIR}`;
  const lines = [
    `Support Platform API listening on ${url}  (database: ${db})`,
    `Health:       curl ${url}/api/v2/health`,
    `Demo tenant:  ${demo.id}  (${demo.name}, plan ${demo.plan}, ${demo.environment})`,
    `Admin token:  npm run token -- --tenant ${demo.id} --role tenant_admin`,
  ];
  if (demoAdmin)
    lines.push(
      `Console:      ${url}/console/  (sign in as ${demoAdmin.email} / ${demoAdmin.password})`,
      `Sign in:      curl -s -X POST ${url}/api/v1/auth/login -H 'Content-Type: application/json' -d '{"email": "${demoAdmin.email}", "password": "${demoAdmin.password}"}'`,
    );
  const defaulted = defaultedSecrets(process.env);
  if (defaulted.length > 0)
    lines.push(`Using development defaults for: ${defaulted.join(', ')} (set them outside development)`);
  console.log(lines.join('\n'));
});

answerClientErrors(server);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  server.close();
  await runtime.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
