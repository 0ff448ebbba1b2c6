// One keyed (Idempotency-Key) operation as test/integration/idempotency-answer-with-work.test.ts
// drives it: what it needs set up, the request, and what its work leaves behind.
import type { Harness, TestResponse, TestTenant } from '../harness';

export interface CaseContext {
  h: Harness;
  /** a tenant of its own for this case (enterprise plan) */
  t: TestTenant;
  /** an API key of `t` with these scopes (one key per call) */
  key(scopes: string[]): Promise<string>;
}

export interface KeyedRequest {
  method: 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  /** X-API-Key, or a dashboard session (Authorization: Bearer) */
  apiKey?: string;
  bearer?: string;
}

export interface KeyedCase {
  /** the operationId in the OpenAPI document */
  operationId: string;
  /** creates what the request needs (the ids in its path) and returns the request */
  prepare(ctx: CaseContext): Promise<KeyedRequest>;
  /**
   * Optional: a count of what the work writes (rows created, events recorded...), read after the
   * first answer and again after the retry: it must not move, the work ran once.
   */
  effects?(ctx: CaseContext, first: TestResponse): Promise<number>;
}
