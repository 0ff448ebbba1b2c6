import { createHash } from 'node:crypto';
import type { Hasher } from './port';

/** SHA-256 fed chunk by chunk as a body streams (node:crypto). */
export function nodeSha256(): Hasher {
  const hash = createHash('sha256');
  return {
    update: (chunk) => void hash.update(chunk),
    digest: async () => hash.digest('hex'),
  };
}
