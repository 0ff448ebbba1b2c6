import type { Db } from './schema';
import type { WriteWatch } from './write-watch';

/** What a runtime gives the app: the typed query builder plus a raw script runner for migrations. */
export interface DatabaseHandle {
  kind: 'pglite' | 'postgres' | 'neon';
  db: Db;
  /** Runs a multi-statement SQL script as one implicit transaction (simple query protocol). */
  exec(script: string): Promise<void>;
  /** Node adapters: tells read caches when the watched tables may have changed (none on the edge) */
  writes?: WriteWatch;
  close(): Promise<void>;
}
