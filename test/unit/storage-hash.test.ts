// The Node hasher hashes each chunk on a later turn of the event loop (so a chunk just handed to
// storage is hashed while it is written): its digest must still cover every chunk given before it,
// in order, whether or not each update was awaited.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { streamIntoStorage } from '../../shared/files/upload';
import { nodeSha256 } from '../../shared/storage/hash.node';
import type { FileStorage, ObjectStorage } from '../../shared/storage/port';

const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(4096 + i).fill(i));
const expected = () => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

describe('node sha256', () => {
  it('digests every chunk given before it, in order, updates not awaited', async () => {
    const hasher = nodeSha256();
    for (const c of chunks) void hasher.update(c);
    expect(await hasher.digest()).toBe(expected());
  });

  it('hashes a chunk only after storage has taken it, and streams the right sha256', async () => {
    const order: string[] = [];
    const hasher = nodeSha256();
    const files: FileStorage = {
      signingKey: 'k',
      sha256: () => ({
        // logged once the chunk is hashed, not when it is handed over
        update: (chunk) =>
          (hasher.update(chunk) as Promise<void>).then(() => void order.push(`hash ${chunk.byteLength}`)),
        digest: () => hasher.digest(),
      }),
      objects: {
        kind: 'folder',
        async put(_key, body) {
          const reader = body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            order.push(`stored ${value.byteLength}`);
          }
        },
        get: async () => null,
        delete: async () => {},
        list: async () => [],
      } satisfies ObjectStorage,
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });
    const size = chunks.reduce((n, c) => n + c.byteLength, 0);
    const stored = await streamIntoStorage(
      files,
      'k',
      new Request('http://x/', { method: 'POST', body, duplex: 'half' } as RequestInit),
      {
        stated: size,
        limit: size,
        overLimit: () => {
          throw new Error('over');
        },
        contentType: 'application/octet-stream',
      },
    );
    expect(stored).toEqual({ size, sha256: expected() });
    // each chunk reaches storage before it is hashed
    expect(order.slice(0, 4)).toEqual([`stored ${4096}`, `hash ${4096}`, `stored ${4097}`, `hash ${4097}`]);
  });
});
