import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { randomBase62 } from '../crypto';
import { chunksOf, type ObjectStorage } from './port';

/**
 * Files in a folder (`DATA_DIR/files` for `npm start`: nothing to set up). A put writes a temporary
 * file beside the others and renames it into place only once the body has ended, so a body cut off
 * midway never shows under its key; the temporary file is removed on any error. A put resolves only
 * once the file and its name are on disk (the file and its folder synced).
 */
export function folderStorage(root: string): ObjectStorage {
  const pathOf = (key: string) => {
    if (key.split('/').some((part) => part === '' || part === '.' || part === '..'))
      throw new Error(`not a storage key: ${key}`);
    return join(root, key);
  };
  const tmpDir = join(root, '.partial');
  // folders already made: a put then costs no mkdir (a folder removed behind our back is made again
  // when opening the temporary file or the rename reports ENOENT)
  const made = new Set<string>();
  const ensureDir = async (dir: string, again = false) => {
    if (again) made.delete(dir);
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true });
    made.add(dir);
  };
  const syncDir = async (dir: string) => {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };
  const missing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';
  return {
    kind: 'folder',
    async put(key, body) {
      const target = pathOf(key);
      await ensureDir(tmpDir);
      await ensureDir(dirname(target));
      const tmp = join(tmpDir, randomBase62(16));
      let file: FileHandle;
      try {
        file = await open(tmp, 'wx').catch(async (err) => {
          if (!missing(err)) throw err;
          await ensureDir(tmpDir, true);
          return open(tmp, 'wx');
        });
      } catch (err) {
        await body.cancel(err).catch(() => {});
        throw err;
      }
      try {
        // written chunk by chunk on the handle itself, which stays open until its bytes are synced
        try {
          for await (const chunk of chunksOf(body)) {
            for (let at = 0; at < chunk.byteLength; ) {
              at += (await file.write(chunk, at, chunk.byteLength - at)).bytesWritten;
            }
          }
          // durable before it is acknowledged, as S3 and R2 answer: the record pointing at the file
          // commits durably after the put, so a file left in the page cache could be lost to a power
          // failure while its record survives
          await file.sync();
        } finally {
          await file.close().catch(() => {});
        }
        await rename(tmp, target).catch(async (err) => {
          if (!missing(err)) throw err;
          await ensureDir(dirname(target), true);
          await rename(tmp, target);
        });
        // the rename is an entry in the target's folder: durable only once that folder is synced
        await syncDir(dirname(target));
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },
    async get(key, range) {
      const path = pathOf(key);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) return null;
      // Readable.toWeb keeps the file's backpressure: a chunk is read when the client takes one
      const file = range
        ? createReadStream(path, { start: range.offset, end: range.offset + range.length - 1 })
        : createReadStream(path);
      const body = Readable.toWeb(file) as unknown as ReadableStream<Uint8Array>;
      return { body, size: range ? range.length : info.size };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async list(prefix) {
      const out: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries) {
          const path = join(dir, e.name);
          if (e.isDirectory()) await walk(path);
          else out.push(relative(root, path));
        }
      };
      await walk(root);
      return out.filter((k) => k.startsWith(prefix)).sort();
    },
  };
}
