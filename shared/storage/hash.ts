import { toHex } from '../crypto';
import type { Hasher } from './port';

/** workerd's incremental digest (Web Crypto's digest() takes one whole buffer). */
declare const crypto: Crypto & {
  DigestStream?: new (algorithm: string) => WritableStream<Uint8Array> & { digest: Promise<ArrayBuffer> };
};

/** SHA-256 fed chunk by chunk as a body streams, on Workers (crypto.DigestStream). */
export function edgeSha256(): Hasher {
  if (!crypto.DigestStream) throw new Error('crypto.DigestStream is not available on this runtime');
  const stream = new crypto.DigestStream('SHA-256');
  const writer = stream.getWriter();
  let pending: Promise<void> = Promise.resolve();
  return {
    update(chunk) {
      // a copy: the caller hands the same chunk on to storage, which may detach its buffer
      const copy = chunk.slice();
      pending = pending.then(() => writer.write(copy));
    },
    async digest() {
      await pending;
      await writer.close();
      return toHex(await stream.digest);
    },
  };
}
