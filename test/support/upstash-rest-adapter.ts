// The Upstash REST stand-in in front of a real Redis; it lives in scripts/edge (the edge bench runs
// it too, and scripts/ never imports test/).
import { redisReachable } from '../../scripts/edge/upstash-rest';

export * from '../../scripts/edge/upstash-rest';

/**
 * Whether this machine's Redis (127.0.0.1:6379) answers, for a test file's top level: a file
 * skips its Redis cases without it, except under CI=true, where a missing Redis fails the file.
 */
export async function redisForTests(): Promise<boolean> {
  const up = await redisReachable();
  if (!up && process.env.CI === 'true')
    throw new Error('Redis is not reachable at 127.0.0.1:6379; CI requires it');
  return up;
}
