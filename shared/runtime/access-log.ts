import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import type { Credential } from '../context/credential';
import { routePatternOf } from '../http/route-pattern';
import type { Logger } from '../log/logger';

/**
 * The clock a request's duration is read from, at its start and in its access line. Node defines
 * `performance` on the global object as a getter, a call on every read: it is read once, here.
 */
const clock = performance;
export const requestClock = (): number => clock.now();

/** What one access line says of a request. */
export interface AccessLine {
  method: string;
  /** the route pattern (`/api/v1/tickets/:id`), not the raw path; null when no route matched */
  route: string | null;
  status: number;
  /** requestClock() when the request came in */
  startedAt: number;
  auth: Credential | undefined;
  requestId: string | undefined;
}

/**
 * One structured line per request, at `info`: method, route pattern (not the raw path, so lines
 * group by endpoint and carry no ids or query strings), status, duration, tenant, credential kind
 * and request id. Never a header, body or token: nothing secret reaches it.
 */
export function writeAccessLine(logger: Logger, line: AccessLine): void {
  if (!logger.isLevelEnabled('info')) return;
  const { auth } = line;
  const tenantId = auth && 'tenantId' in auth ? quoted(auth.tenantId) : 'null';
  const credential = auth ? `"${auth.kind}"` : 'null';
  const route = line.route === null ? 'null' : `"${line.route}"`;
  const requestId = line.requestId === undefined ? 'null' : quoted(line.requestId);
  const durationMs = Math.round((requestClock() - line.startedAt) * 100) / 100;
  // one template, written as JSON here rather than handed to pino as an object: the fields are
  // fixed, and pino's object walk, then a JSON.stringify per field, would be most of the line's cost
  // (docs/benchmarks.md, "The refusal (f)"). The method (an HTTP token), the route (a
  // registered pattern) and the credential kind cannot hold a character JSON escapes.
  logger.infoMembers(
    `"method":"${line.method}","route":${route},"status":${line.status},"duration_ms":${durationMs},"tenant_id":${tenantId},"credential":${credential},"request_id":${requestId}`,
    'request',
  );
}

/** The access line of a request the router saw. */
export function logAccess(c: Context<AppEnv>, logger: Logger, startedAt: number, status: number): void {
  if (!logger.isLevelEnabled('info')) return;
  writeAccessLine(logger, {
    method: c.req.method,
    route: routePatternOf(c),
    status,
    startedAt,
    auth: c.get('auth'),
    requestId: c.get('requestId'),
  });
}

/**
 * A string as JSON: a sent request id or a token's tenant claim may hold anything. Printable ASCII
 * but a double quote or a backslash is its own JSON body (a loop, not a regular expression: on the
 * request ids this process makes, which V8 holds as concatenations, a RegExp test left the fast path).
 */
const quoted = (value: string): string => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 /* " */ || c === 0x5c /* \ */) return JSON.stringify(value);
  }
  return `"${value}"`;
};
