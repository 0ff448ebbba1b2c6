import { defineConfig } from 'vitest/config';

/**
 * The browser tier (`npm run test:browser`): the console in headless Chromium (Debian's
 * /usr/bin/chromium, driven by playwright-core) against `npm start` on its own port and DATA_DIR.
 * Not part of `npm test`; .ci/run runs it.
 */
export default defineConfig({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
