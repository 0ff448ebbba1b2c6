import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Miniflare reads NODE_EXTRA_CA_CERTS once, when it loads (in globalSetup, after this file): the
// Workers then trust the tests' HTTPS webhook receiver (scripts/lib/tls/localhost.crt) besides
// whatever the environment already names, as they would trust a receiver's real certificate.
const testCert = fileURLToPath(new URL('./scripts/lib/tls/localhost.crt', import.meta.url));
const already = process.env.NODE_EXTRA_CA_CERTS;
if (already !== testCert) {
  const bundle = join(tmpdir(), `spa-e2e-ca-${process.pid}.pem`);
  let extra = '';
  try {
    extra = already ? readFileSync(already, 'utf8') : '';
  } catch {
    /* a missing file adds nothing, as for Node itself */
  }
  writeFileSync(bundle, `${extra}\n${readFileSync(testCert, 'utf8')}`);
  process.env.NODE_EXTRA_CA_CERTS = bundle;
}

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
