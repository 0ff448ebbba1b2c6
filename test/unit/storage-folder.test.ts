// The folder adapter makes its folders once per process: a folder removed behind its back (the
// temporary one or a tenant's) is made again, and the put still succeeds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
