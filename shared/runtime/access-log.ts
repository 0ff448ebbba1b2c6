import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { routePatternOf } from '../http/route-pattern';
import type { Logger } from '../log/logger';

/**
 * One structured line per request, at `info`: method, route pattern (not the raw path, so lines
 * group by endpoint and carry no ids or query strings), status, duration, tenant, credential kind
 * and request id. Never a header, body or token: nothing secret reaches it.
 */
export function logAccess(c: Context<AppEnv>, logger: Logger, startedAt: number, status: number): void {
  if (!logger.isLevelEnabled('info')) return;
  const auth = c.get('auth');
  // written as JSON here rather than handed to pino as an object: the fields are fixed, and pino's
  // generic object walk was most of the line's cost in a profile of the refusal (README, Benchmarks)
  const durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
  logger.infoMembers(
    `"method":${json(c.req.method)},"route":${json(routePatternOf(c))},"status":${status}` +
      `,"duration_ms":${durationMs},"tenant_id":${json(auth && 'tenantId' in auth ? auth.tenantId : null)}` +
      `,"credential":${json(auth?.kind ?? null)},"request_id":${json(c.get('requestId') ?? null)}`,
    'request',
  );
}

const json = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));
