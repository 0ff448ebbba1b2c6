import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Hono's `c.var` getter copies every context variable into a new object on each access; on the
// request path that showed up in profiles. Handlers and middleware read `c.get('name')` instead.
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('context variables', () => {
  it('no request-path code reads c.var', () => {
    const offenders = ['functions', 'shared', 'scripts']
      .flatMap(sources)
      .filter((file) => /\bc\.var\b/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
