// Edge adapter: Postgres over WebSocket through @neondatabase/serverless (Workers): one Pool per
// request. The edge's default is the HTTP path (neon-http.ts); this one stays for NEON_TRANSPORT=websocket
// (the bench's comparison) and its WebSocket set-up serves neon-http.ts's transactions.
import { neonConfig, Pool } from '@neondatabase/serverless';
import { Kysely, PostgresDialect } from 'kysely';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';

export interface NeonOptions {
  /**
   * Local development/tests: `host:port` of a WebSocket-to-TCP proxy in front of a plain Postgres.
   * The driver then opens `ws://<wsProxy>/v1?address=<db host>:<db port>` (scripts/edge/ws-proxy.ts).
   */
  wsProxy?: string;
}

/** Local development/tests: the driver's sockets go through the WebSocket proxy at `proxy` (host:port). */
export function useLocalWsProxy(proxy: string): void {
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineConnect = false;
  neonConfig.pipelineTLS = false;
}

/**
 * One handle per request: Neon's Pool must be created inside the request on Workers
 * (a socket cannot outlive the request that opened it). Close it with waitUntil.
 */
export function createNeonHandle(connectionString: string, options: NeonOptions = {}): DatabaseHandle {
  if (options.wsProxy) useLocalWsProxy(options.wsProxy);
  const pool = new Pool({ connectionString, max: 1 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) });
  return {
    kind: 'neon',
    db,
    async exec(script) {
      await pool.query(script);
    },
    async close() {
      await db.destroy();
    },
  };
}
