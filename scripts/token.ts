// `npm run token -- --tenant <id> --role tenant_admin [--sub <user>] [--ttl 3600]`
// Mints a dashboard session JWT (HS256, DASHBOARD_JWT_SECRET) for local use and scripts.
import { parseArgs } from 'node:util';
import { ROLES, type Role, signDashboardToken } from '../shared/auth/jwt';
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
const config = loadConfig(process.env);
const token = await signDashboardToken(
  config.DASHBOARD_JWT_SECRET,
  { sub: values.sub!, tenant_id: values.tenant!, role },
  Number(values.ttl),
);
console.log(token);
