import { createHash } from 'node:crypto';
import type { Hasher } from './port';

/**
 * SHA-256 fed chunk by chunk as a body streams (node:crypto). Each chunk is hashed on the next turn
 * of the event loop: a chunk just handed to storage is then hashed while its write runs on libuv's
 * threads, instead of before the write starts. The chunk must not change meanwhile (no adapter
 * writes into the buffers it is given); the digest waits for every chunk given before it.
 */
export function nodeSha256(): Hasher {
  const hash = createHash('sha256');
  let hashed = Promise.resolve();
  return {
    update(chunk) {
      hashed = hashed.then(
        () =>
          new Promise<void>((resolve, reject) =>
            setImmediate(() => {
              try {
                hash.update(chunk);
                resolve();
              } catch (err) {
                reject(err);
              }
            }),
          ),
      );
      return hashed;
    },
    async digest() {
      await hashed;
      return hash.digest('hex');
    },
  };
}
