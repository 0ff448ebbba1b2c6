// The e2e tier's stack: scripts/edge/stack.ts (every function's Worker in workerd, Postgres through
// the Neon SQL-over-HTTP endpoint and the WebSocket proxy) with the tests' secrets and Postgres.
import { type EdgeStack, startEdgeStack as start } from '../../scripts/edge/stack';
import { TEST_SECRETS } from '../support/harness';
import { PG_ADMIN_URL } from '../support/pg';

export { E2E_HOST, type EdgeStack, ensureBundles } from '../../scripts/edge/stack';

export function startEdgeStack(
  options: {
    port?: number;
    extraBindings?: Record<string, string>;
    delayMs?: number;
    controls?: boolean;
  } = {},
): Promise<EdgeStack> {
  return start({ ...options, adminUrl: PG_ADMIN_URL, secrets: TEST_SECRETS });
}
