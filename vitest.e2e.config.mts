import { defineConfig } from 'vitest/config';

/**
 * The e2e tier (`npm run test:e2e`): every function's Worker bundle in workerd (Miniflare), routed
 * by the manifest, on this machine's Postgres through the Neon driver's HTTP path (a local endpoint
 * speaking Neon's SQL-over-HTTP protocol) and a WebSocket proxy for interactive transactions. Slow to
 * start (one workerd for all functions), so it is not part of `npm test`.
 */
export default defineConfig({
  test: {
    name: 'e2e',
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
