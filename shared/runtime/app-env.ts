import type { Hono } from 'hono';
import type { Credential } from '../auth/credential';
import type { Services } from './services';

/** Typed bindings/variables every function's Hono app shares. */
export interface AppEnv {
  Bindings: Record<string, unknown>;
  Variables: {
    services: Services;
    auth: Credential;
    requestId: string;
  };
}

export type FunctionApp = Hono<AppEnv>;
