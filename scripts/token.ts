// `npm run -s token -- --tenant <id> --role tenant_admin [--sub <user>] [--ttl 3600]`
// Mints a dashboard session JWT (HS256, DASHBOARD_JWT_SECRET) for local use and scripts.
import { parseArgs } from 'node:util';
import { MAX_SESSION_SECONDS, ROLES, type Role, signDashboardToken } from '../shared/auth/jwt';
import { loadConfig } from '../shared/env';
import { refuse } from './startup-checks';

const USAGE = `Usage: npm run -s token -- [options]      (-s keeps npm's banner out of TOKEN=$(…))
Prints a dashboard session JWT, signed with DASHBOARD_JWT_SECRET as a server with this environment reads it.
  --tenant <id>   the tenant it acts in (default ten_demo; platform with --role super_admin)
  --role <role>   ${ROLES.join(', ')} (default tenant_admin)
  --sub <user>    the user id it names (default user_local_admin)
  --ttl <s>       lifetime in seconds, 1 to ${MAX_SESSION_SECONDS}: the server refuses longer (default ${MAX_SESSION_SECONDS})
  -h, --help      this text`;

/** A wrong invocation: what is wrong, then the usage, on stderr; exit 2 (no stack trace). */
function usageError(problem: string): never {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

function parseOptions() {
  try {
    return parseArgs({
      options: {
        tenant: { type: 'string', default: 'ten_demo' },
        role: { type: 'string', default: 'tenant_admin' },
        sub: { type: 'string', default: 'user_local_admin' },
        ttl: { type: 'string', default: String(MAX_SESSION_SECONDS) },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    // parseArgs' ERR_PARSE_ARGS_*: its first sentence says what is wrong; the rest suggests `--`,
    // which this command has no use for
    usageError((error as Error).message.replace(/\. .*$/s, ''));
  }
}

const values = parseOptions();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const role = values.role as Role;
if (!ROLES.includes(role)) usageError(`--role must be one of ${ROLES.join(', ')} (got ${values.role})`);
// the server refuses a session without a tenant or a user
if (!values.tenant) usageError('--tenant must not be empty');
if (!values.sub) usageError('--sub must not be empty');
// the server rejects a session living longer than MAX_SESSION_SECONDS: refuse to mint one it would refuse
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_SESSION_SECONDS) {
  usageError(
    `--ttl must be a whole number of seconds from 1 to ${MAX_SESSION_SECONDS}: the server rejects dashboard tokens living longer (got ${values.ttl})`,
  );
}
let secret: string;
try {
  secret = loadConfig(process.env).DASHBOARD_JWT_SECRET;
} catch (error) {
  refuse(error);
}
const token = await signDashboardToken(secret, { sub: values.sub, tenant_id: values.tenant, role }, ttl);
console.log(token);
