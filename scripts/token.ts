// `npm run token -- --tenant <id> --role tenant_admin [--sub <user>] [--ttl 3600]`
// Mints a dashboard session JWT (HS256, DASHBOARD_JWT_SECRET) for local use and scripts.
import { parseArgs } from 'node:util';
import { MAX_SESSION_SECONDS, ROLES, type Role, signDashboardToken } from '../shared/auth/jwt';
import { loadConfig } from '../shared/env';

const { values } = parseArgs({
  options: {
    tenant: { type: 'string', default: 'ten_demo' },
    role: { type: 'string', default: 'tenant_admin' },
    sub: { type: 'string', default: 'user_local_admin' },
    ttl: { type: 'string', default: '3600' },
  },
});
const role = values.role as Role;
if (!ROLES.includes(role)) {
  console.error(`--role must be one of ${ROLES.join(', ')}`);
  process.exit(2);
}
// the server rejects a session living longer than MAX_SESSION_SECONDS: refuse to mint one it would refuse
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_SESSION_SECONDS) {
  console.error(
    `--ttl must be a whole number of seconds from 1 to ${MAX_SESSION_SECONDS}: the server rejects dashboard tokens living longer (got ${values.ttl})`,
  );
  process.exit(2);
}
const config = loadConfig(process.env);
const token = await signDashboardToken(
  config.DASHBOARD_JWT_SECRET,
  { sub: values.sub!, tenant_id: values.tenant!, role },
  ttl,
);
console.log(token);
