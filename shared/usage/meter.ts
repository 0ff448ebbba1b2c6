import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Insertable } from 'kysely';
import type { Db } from '../db/schema';
import type { UsageRecordsTable } from '../db/tables/platform';
import { newId } from '../ids';
import type { AppEnv } from '../runtime/app-env';

type Row = Insertable<UsageRecordsTable>;

/**
 * Buffers usage rows per database and writes them in one multi-row INSERT per flush. A flush is
 * scheduled through `services.defer` (after the response: waitUntil on Workers, a tracked promise
 * in Node), so metering never adds latency to the request, and requests served in the same tick
 * share one INSERT.
 */
class UsageRecorder {
  private buffer: Row[] = [];
  private scheduled = false;
  constructor(private readonly db: Db) {}

  record(row: Row, defer: (task: () => Promise<unknown>) => void) {
    this.buffer.push(row);
    if (this.scheduled) return;
    this.scheduled = true;
    defer(async () => {
      await new Promise((r) => setTimeout(r, 0)); // let the rows of this tick join the batch
      this.scheduled = false;
      await this.flush();
    });
  }

  async flush() {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, 500);
      try {
        await this.db.insertInto('usage_records').values(batch).execute();
      } catch {
        // one bad row (a tenant deleted meanwhile) must not lose the others
        for (const row of batch)
          await this.db
            .insertInto('usage_records')
            .values(row)
            .execute()
            .catch(() => {});
      }
    }
  }
}

const recorders = new WeakMap<Db, UsageRecorder>();
export function recorderFor(db: Db): UsageRecorder {
  let r = recorders.get(db);
  if (!r) {
    r = new UsageRecorder(db);
    recorders.set(db, r);
  }
  return r;
}

/** The route pattern that answered (`/api/v1/tickets/:id`), not the concrete path: no ids in metrics. */
export function endpointOf(c: Context): string {
  const method = c.req.method.toUpperCase();
  let found: string | null = null;
  for (const r of matchedRoutes(c)) {
    if (r.path === '*' || r.path === '/*' || r.path.endsWith('/*')) continue;
    if (r.method === method || (method === 'HEAD' && r.method === 'GET')) found = r.path;
  }
  return found ?? 'unmatched';
}

/**
 * afterGate middleware: one `api_requests` usage row per request made with a tenant's credential
 * (API key, dashboard session, end-user token), whatever its status; rate-limited requests (429)
 * are refused before this and are not metered. Internal and anonymous calls are not metered.
 */
export function meterUsage(): MiddlewareHandler<AppEnv> {
  return async function meterUsage(c, next) {
    await next();
    const auth = c.get('auth');
    if (auth.kind !== 'api_key' && auth.kind !== 'dashboard' && auth.kind !== 'end_user') return;
    if (auth.kind === 'dashboard' && auth.role === 'super_admin') return;
    const { services } = c.var;
    recorderFor(services.db).record(
      {
        id: newId('usageEvent'),
        tenant_id: auth.tenantId,
        kind: 'api_requests',
        quantity: 1,
        method: c.req.method.toUpperCase(),
        endpoint: endpointOf(c),
        status: c.res.status,
        api_key_id: auth.kind === 'api_key' ? auth.keyId : null,
        actor:
          auth.kind === 'api_key'
            ? `api_key:${auth.keyId}`
            : auth.kind === 'dashboard'
              ? `user:${auth.userId}`
              : `end_user:${auth.endUserId}`,
        created_at: new Date(),
      },
      services.defer,
    );
  };
}
