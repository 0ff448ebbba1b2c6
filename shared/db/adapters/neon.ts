// Edge adapter: Postgres over WebSocket through @neondatabase/serverless (Workers).
import { neonConfig, Pool } from '@neondatabase/serverless';
import { Kysely, PostgresDialect } from 'kysely';
import type { DatabaseHandle } from '../handle';
import type { Database } from '../schema';

export interface NeonOptions {
  /**
   * Local development/tests: `host:port` of a WebSocket-to-TCP proxy in front of a plain Postgres.
   * The driver then opens `ws://<wsProxy>/v1?address=<db host>:<db port>` (test/support/ws-proxy.ts).
   */
  wsProxy?: string;
}

/**
 * One handle per request: Neon's Pool must be created inside the request on Workers
 * (a socket cannot outlive the request that opened it). Close it with waitUntil.
 */
export function createNeonHandle(connectionString: string, options: NeonOptions = {}): DatabaseHandle {
  if (options.wsProxy) {
    const proxy = options.wsProxy;
    neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
    neonConfig.useSecureWebSocket = false;
    neonConfig.pipelineConnect = false;
    neonConfig.pipelineTLS = false;
  }
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
