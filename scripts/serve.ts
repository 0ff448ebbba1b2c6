// `npm start`: the embedded runtime on PORT/HOST (default 127.0.0.1:8787).
import { serve } from '@hono/node-server';
import { type AppConfig, defaultedSecrets, loadConfig } from '../shared/env';
import {
  answerClientErrors,
  arrivalLimits,
  capConnectionsPerClient,
} from '../shared/runtime/client-errors.node.js';
import { type Drain, drainable } from '../shared/runtime/drain.node.js';
import { lingerBeforeClose } from '../shared/runtime/linger.node.js';
import { createEmbeddedRuntime, type EmbeddedRuntime } from './embedded';
import { DEMO_ADMIN, seedDemoAdmin, seedDemoTenant } from './seed';
import {
  checkPortFree,
  checkPublicBaseUrl,
  checkRedisUrls,
  listenFailure,
  listeningBase,
  lockDataDir,
  parsePort,
  refuse,
} from './startup-checks';

let drain: Drain | undefined;
let runtime: EmbeddedRuntime | undefined;
let stopping = false;
/**
 * The stop: no new connections, the requests in flight finish (up to SHUTDOWN_GRACE_MS), then
 * the delivery worker hands back the attempts it claimed and has not started (due again at once
 * for another process) and waits for those it started, and the database closes. A second signal
 * changes nothing: `npm start` forwards the one its process group also delivers.
 */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  const graceMs = config?.SHUTDOWN_GRACE_MS ?? DEFAULT_GRACE_MS;
  console.log(`${signal}: draining (requests in flight have ${graceMs} ms)`);
  const finished = (await drain?.drain(graceMs)) ?? true;
  if (!finished) console.log(`${signal}: requests still running after ${graceMs} ms were cut off`);
  await runtime?.close();
  console.log(`${signal}: stopped`);
  process.exit(0);
}
/** SHUTDOWN_GRACE_MS before the configuration is read (a signal during start-up) */
const DEFAULT_GRACE_MS = 10_000;
// from the start: Ctrl-C during start-up still exits through 'exit', which releases DATA_DIR
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

let config: AppConfig | undefined;
let port: number;
const host = process.env.HOST ?? '127.0.0.1';
try {
  config = loadConfig(process.env);
  port = parsePort(process.env.PORT);
  checkPublicBaseUrl(config);
  checkRedisUrls(config);
  // only the embedded PGlite is one process's alone; Postgres serves any number of them
  if (!config.DATABASE_URL) process.on('exit', lockDataDir(config.DATA_DIR));
  await checkPortFree(port, host);
} catch (error) {
  refuse(error);
}

runtime = await createEmbeddedRuntime({ config });
const demo = await seedDemoTenant(runtime.services.db);
// a known password is for development only: elsewhere the demo admin exists only if one is given
const demoPassword =
  process.env.DEMO_ADMIN_PASSWORD ||
  (config.APP_ENV === 'development' || config.APP_ENV === 'test' ? DEMO_ADMIN.devPassword : undefined);
const demoAdmin = demoPassword ? await seedDemoAdmin(runtime.services.db, demoPassword) : null;

// headers and body within REQUEST_TIMEOUT_MS, else 408 (answerClientErrors below)
const listen = { fetch: runtime.app.fetch, port, hostname: host, serverOptions: arrivalLimits(config) };
const server = serve(listen, (info) => {
  const url = `http://${host}:${info.port}`;
  // links in mails start with the configured base only; unset (outside production), the listening address
  config.PUBLIC_BASE_URL ||= listeningBase(host, info.port);
  const db = config.DATABASE_URL ? 'Postgres (DATABASE_URL)' : `PGlite in ${config.DATA_DIR}`;
  const lines = [
    `Support Platform API listening on ${url}  (database: ${db})`,
    `Health:       curl ${url}/api/v2/health`,
    `Demo tenant:  ${demo.id}  (${demo.name}, plan ${demo.plan}, ${demo.environment})`,
    // -s: without it, TOKEN=$(npm run token …) would capture npm's own banner too
    `Admin token:  npm run -s token -- --tenant ${demo.id} --role tenant_admin`,
  ];
  // a password on stdout ends up in log collectors: only development's well-known one is printed
  const shown = config.APP_ENV === 'development' ? demoAdmin?.password : undefined;
  if (demoAdmin && shown)
    lines.push(
      `Console:      ${url}/console/  (sign in as ${demoAdmin.email} / ${shown})`,
      `Sign in:      curl -s -X POST ${url}/api/v1/auth/login -H 'Content-Type: application/json' -d '{"email": "${demoAdmin.email}", "password": "${shown}"}'`,
    );
  else if (demoAdmin)
    lines.push(`Console:      ${url}/console/  (sign in as ${demoAdmin.email} with DEMO_ADMIN_PASSWORD)`);
  const defaulted = defaultedSecrets(process.env);
  if (defaulted.length > 0)
    lines.push(`Using development defaults for: ${defaulted.join(', ')} (set them outside development)`);
  console.log(lines.join('\n'));
});
// the port was free at the check above; another process may have taken it during start-up
server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(listenFailure(error, port, host));
  process.exit(1);
});

drain = drainable(server);
answerClientErrors(server);
capConnectionsPerClient(server, config);
lingerBeforeClose(server);
