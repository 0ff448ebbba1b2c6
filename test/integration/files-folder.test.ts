import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileSuite } from '../support/files-suite';
import { postgresUnavailable } from '../support/harness';

/** Every file under the folder adapter's root, partial ones included. */
function walk(root: string, dir = root, out: string[] = []): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(root, path, out);
    else out.push(relative(root, path));
  }
  return out.sort();
}

if (!postgresUnavailable())
  fileSuite('the folder adapter (DATA_DIR/files)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'files-folder-'));
    return {
      env: { DATA_DIR: dir },
      objects: async () => walk(join(dir, 'files')),
      close: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
