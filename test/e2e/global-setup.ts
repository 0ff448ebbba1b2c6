// globalSetup of the e2e tier: one edge stack (test/e2e/edge-stack.ts) for every test file.
import type { TestProject } from 'vitest/node';
import { postgresReachable } from '../support/pg';
import { redisReachable, startUpstashRestAdapter } from '../support/upstash-rest-adapter';
import { startEdgeStack } from './edge-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    edgeUrl: string;
    edgeBindings: Record<string, string>;
    edgeDatabaseUrl: string;
    /** Upstash REST adapter in front of the local Redis ('' when Redis is not reachable) */
    upstashUrl: string;
    upstashToken: string;
  }
}

/** QStash signing keys the tests sign callbacks with (fresh per run; never real keys). */
const randomKey = () => `sig_${crypto.randomUUID().replaceAll('-', '')}`;

export default async function setup(project: TestProject) {
  if (!(await postgresReachable()))
    throw new Error('The e2e tier needs PostgreSQL at 127.0.0.1:5432 (set TEST_POSTGRES_URL)');
  // Redis through the Upstash REST adapter (the Workers' @upstash/redis client speaks REST only)
  const upstash = (await redisReachable()) ? await startUpstashRestAdapter() : null;
  if (!upstash && process.env.CI === 'true')
    throw new Error('The e2e tier needs Redis at 127.0.0.1:6379 in CI');
  const stack = await startEdgeStack({
    extraBindings: {
      ...(upstash ? { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token } : {}),
      QSTASH_CURRENT_SIGNING_KEY: randomKey(),
      QSTASH_NEXT_SIGNING_KEY: randomKey(),
      QSTASH_TOKEN: 'e2e-qstash-token',
      PUBLIC_BASE_URL: 'http://127.0.0.1:8895',
    },
  });
  project.provide('edgeUrl', stack.url);
  project.provide('edgeBindings', stack.bindings);
  project.provide('edgeDatabaseUrl', stack.databaseUrl);
  project.provide('upstashUrl', upstash?.url ?? '');
  project.provide('upstashToken', upstash?.token ?? '');
  return async () => {
    // the Workers' statements go over Neon's HTTP path: a run that never reached the endpoint
    // tested the WebSocket path instead
    const httpRequests = stack.endpoint.requests;
    await stack.close();
    await upstash?.close();
    if (httpRequests === 0) throw new Error('no statement reached the Neon SQL-over-HTTP endpoint');
  };
}
