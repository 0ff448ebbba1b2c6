import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test tiers:
 *  - unit: pure modules, no database
 *  - pglite / postgres: the same integration suites on the embedded database and on this
 *    machine's real Postgres (with CI=true a missing Postgres fails the run)
 *  - slow: the pglite tier's heaviest files (below), which `npm test` runs and `test:quick` leaves out
 *  - reliability: faults survived (killed server, Postgres restart, Redis down), real processes
 */

/**
 * Integration files the quick loop (`npm run test:quick`: unit and pglite) leaves out: each spawns
 * processes (`npm start`, the listener), runs hundreds of requests or waits in real time; each had
 * more test time than any file the loop keeps. On PGlite they run in the `slow` tier; the postgres
 * tier runs them as it runs every integration file.
 */
const SLOW = [
  'test/integration/schema-fuzz.test.ts', // every documented operation, valid and mutated
  'test/integration/webhooks-delivery.test.ts', // real retry waits and timeouts
  'test/integration/webhooks-listen.test.ts', // `npm start` and the listener as processes
  'test/integration/files-stream.test.ts', // a 25 MiB file through `npm start` in its own process
  'test/integration/client-typescript.test.ts', // the typed client against a listening server
  'test/integration/idempotency-answer-with-work.test.ts', // waits out a lease for each of 30 operations
  'test/integration/webhooks-health.test.ts', // a rate limit over 9 s and an outage in real time
  'test/integration/idempotency-lease.test.ts', // leases expiring and renewed in real time
  'test/integration/pglite-pool.test.ts', // a PGlite started for each case (what the pool saves)
];

const pglite = {
  env: { TEST_DB: 'pglite' },
  globalSetup: ['test/support/pglite-global-setup.ts'],
};
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files share their worker's module graph (reliability opts back in below): each isolated file
    // re-imported the app and re-compiled PGlite's WebAssembly, about half of the suite's CPU time.
    // Every file still opens its own database and runtime through test/support/harness.ts.
    isolate: false,
    // Vitest's default is one worker per core minus one: a single worker on this 2-core machine, while
    // most of a test's time is spent waiting on Postgres, sockets and timers. Three workers there
    // roughly halve the suite's time (docs/testing.md, "How long, and why it is not longer").
    maxWorkers: Math.max(3, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'pglite',
          include: ['test/integration/**/*.test.ts'],
          exclude: SLOW,
          ...pglite,
        },
      },
      { extends: true, test: { name: 'slow', include: SLOW, ...pglite } },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          env: { TEST_DB: 'postgres' },
          globalSetup: ['test/support/pg-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          testTimeout: 180_000,
          isolate: true,
          // after the other tiers and one file at a time: these tests time real faults (a 300 ms
          // webhook timeout, a restarted Postgres), which the parallel integration tiers starve
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
        },
      },
    ],
  },
});
