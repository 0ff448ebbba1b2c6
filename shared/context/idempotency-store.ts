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
/**
 * One request's hold on a key: `token` names the holder, and the hold lasts `leaseMs` from its
 * last renewal. A holder whose lease ran out (its process died or stalled) can no longer
 * complete, release or commit work under the key.
 */
export interface IdempotencyClaim {
  scope: IdempotencyScope;
  fingerprint: string;
  token: string;
  leaseMs: number;
  /** the key the stores seal this request's answer under (shared/http/answer-seal.ts) */
  sealKey: string;
}
export type BeginResult =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  /** takes the key under the claim's lease, or says why not (a lapsed lease is taken over) */
  begin(claim: IdempotencyClaim): Promise<BeginResult>;
  /** extends the lease while the request runs; false once another holder has the key */
  renew(claim: IdempotencyClaim): Promise<boolean>;
  /** keeps the response for replay, if the claim still holds the key */
  complete(claim: IdempotencyClaim, response: StoredResponse): Promise<void>;
  /** gives the key back, if the claim still holds it and its work did not commit */
  release(claim: IdempotencyClaim): Promise<void>;
  /** the store is not the database: a key taken anew must look for a record the work committed there */
  readonly apartFromDatabase: boolean;
}
