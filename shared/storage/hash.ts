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
  return {
    // the caller awaits each write before reading the next chunk: a digest slower than the sender
    // holds the sender back instead of queueing the body's chunks in memory. A copy, taken now: the
    // caller has just handed the same chunk on to storage, which may detach its buffer once it reads.
    update: (chunk) => writer.write(chunk.slice()),
    async digest() {
      await writer.close();
      return toHex(await stream.digest);
    },
  };
}
