// The folder adapter makes its folders once per process: a folder removed behind its back (the
// temporary one or a tenant's) is made again, and the put still succeeds.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { folderStorage } from '../../shared/storage/folder.node';

const body = (text: string) => new Response(text).body as ReadableStream<Uint8Array>;
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('folder storage', () => {
  it('puts again after its temporary folder and a key folder were removed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'folder-storage-'));
    roots.push(root);
    const store = folderStorage(root);
    const options = { size: null, contentType: 'text/plain' };
    await store.put('ten_a/one', body('first'), options);
    rmSync(join(root, 'ten_a'), { recursive: true });
    await store.put('ten_a/two', body('second'), options);
    rmSync(join(root, '.partial'), { recursive: true });
    await store.put('ten_a/three', body('third'), options);
    expect(await store.list('ten_a/')).toEqual(['ten_a/three', 'ten_a/two']);
    expect(readFileSync(join(root, 'ten_a', 'three'), 'utf8')).toBe('third');
    expect(await store.list('.partial')).toEqual([]);
  });
});

// A put resolves only once it is durable, as S3 and R2 answer: the file synced before it is renamed
// into place, then its folder synced so the rename itself survives a power failure.
describe('folder storage durability', () => {
  it('syncs the file before the rename and the key folder after it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'folder-storage-'));
    roots.push(root);
    const probe = await open(join(root, 'probe'), 'w');
    const handleProto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const target = join(root, 'ten_a', 'one');
    const synced: { dir: boolean; ino: number; size: number; targetThere: boolean }[] = [];
    const original = handleProto.sync;
    const spy = vi.spyOn(handleProto, 'sync').mockImplementation(async function (this: FileHandle) {
      const info = await this.stat();
      synced.push({
        dir: info.isDirectory(),
        ino: info.ino,
        size: info.size,
        targetThere: existsSync(target),
      });
      return original.call(this);
    });
    try {
      await folderStorage(root).put('ten_a/one', body('durable'), { size: null, contentType: 'text/plain' });
    } finally {
      spy.mockRestore();
    }
    expect(synced).toEqual([
      { dir: false, ino: statSync(target).ino, size: 7, targetThere: false },
      { dir: true, ino: statSync(join(root, 'ten_a')).ino, size: expect.any(Number), targetThere: true },
    ]);
  });
});
