import type { Hono } from 'hono';
import type { Credential } from './credential';
import type { IdempotencyClaim } from './idempotency-store';
import type { Services } from './services';

/**
 * Typed bindings/variables every function's Hono app shares. Read them with `c.get('services')`,
 * never through Hono's `var` getter, which builds a fresh object of all variables on each access
 * (a measurable share of a cached ticket read). test/unit/context-vars.test.ts keeps it that way.
 */
export interface AppEnv {
  Bindings: Record<string, unknown>;
  Variables: {
    services: Services;
    auth: Credential;
    /** the caller's X-Request-Id, when it sent one */
    requestId: string | undefined;
    /** the request's hold on its Idempotency-Key, when it sent one (a route may commit under it) */
    idempotency: IdempotencyClaim | undefined;
  };
}

export type FunctionApp = Hono<AppEnv>;
