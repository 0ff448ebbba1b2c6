// globalSetup of the e2e tier: one edge stack (test/e2e/edge-stack.ts) for every test file.
import type { TestProject } from 'vitest/node';
import { postgresReachable } from '../support/pg';
import { startEdgeStack } from './edge-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    edgeUrl: string;
    edgeBindings: Record<string, string>;
    edgeDatabaseUrl: string;
  }
}

/** QStash signing keys the tests sign callbacks with (fresh per run; never real keys). */
const randomKey = () => `sig_${crypto.randomUUID().replaceAll('-', '')}`;

export default async function setup(project: TestProject) {
  if (!(await postgresReachable()))
    throw new Error('The e2e tier needs PostgreSQL at 127.0.0.1:5432 (set TEST_POSTGRES_URL)');
  const stack = await startEdgeStack({
    extraBindings: {
      QSTASH_CURRENT_SIGNING_KEY: randomKey(),
      QSTASH_NEXT_SIGNING_KEY: randomKey(),
      QSTASH_TOKEN: 'e2e-qstash-token',
      PUBLIC_BASE_URL: 'http://127.0.0.1:8895',
    },
  });
  project.provide('edgeUrl', stack.url);
  project.provide('edgeBindings', stack.bindings);
  project.provide('edgeDatabaseUrl', stack.databaseUrl);
  return () => stack.close();
}
