// A harness that reads API keys as a Worker does: every keyed request looks its key up in the
// shared cache in Redis (over `protocol`), with no in-process key cache in front of it.
import { type RedisClient, redisClient } from '../../shared/redis/client';
import { type Harness, startHarness } from './harness';
import { type RedisProtocol, redisEnvFor, type UpstashRestAdapter } from './upstash-rest-adapter';

export interface SharedKeyHarness {
  h: Harness;
  /** the Upstash REST stand-in (its `commands` count round trips); none on the plain protocol */
  adapter?: UpstashRestAdapter;
  /** the runtime's own rate-limit client: the deployment's key prefix, over the same protocol */
  redis: RedisClient;
  close(): Promise<void>;
}

export async function startSharedKeyHarness(
  protocol: RedisProtocol,
  env: Record<string, string>,
): Promise<SharedKeyHarness> {
  const backend = await redisEnvFor(protocol);
  const h = await startHarness({ ...backend.env, RATE_LIMIT_TIMEOUT_MS: '5000', ...env });
  (h.runtime.services as { keyCache: unknown }).keyCache = null;
  return {
    h,
    adapter: backend.adapter,
    redis: redisClient(h.config, 'rateLimit')!,
    close: async () => {
      await h.close();
      await backend.close();
    },
  };
}
