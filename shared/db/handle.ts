import type { Db } from './schema';

/** What a runtime gives the app: the typed query builder plus a raw script runner for migrations. */
export interface DatabaseHandle {
  kind: 'pglite' | 'postgres' | 'neon';
  db: Db;
  /** Runs a multi-statement SQL script as one implicit transaction (simple query protocol). */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}
