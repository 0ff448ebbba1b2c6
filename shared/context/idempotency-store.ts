// What the idempotency middleware (shared/http/idempotency.ts) needs of its store: the Postgres
// table on Node, Redis on Workers. Declared here, below both, so the services can hold one.

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export interface IdempotencyScope {
  tenantId: string;
  credential: string;
  key: string;
}
export type BeginResult =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  begin(scope: IdempotencyScope, fingerprint: string): Promise<BeginResult>;
  complete(scope: IdempotencyScope, fingerprint: string, response: StoredResponse): Promise<void>;
  release(scope: IdempotencyScope): Promise<void>;
}
