// README and docs/ point only at files of this repository: every relative Markdown link resolves
// (anchors aside) to a file in a fresh clone, and none names a path above the repository's root.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe.each(pages)('%s', (page) => {
  const text = readFileSync(join(ROOT, page), 'utf8');

  it('every relative link resolves to a file of the repository', () => {
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split('#')[0]!)
      .filter((t) => t !== '' && !/^[a-z]+:/i.test(t));
    const broken = targets.filter((t) => {
      const path = resolve(dirname(join(ROOT, page)), decodeURI(t));
      return relative(ROOT, path).startsWith('..') || !existsSync(path);
    });
    expect(broken).toEqual([]);
  });

  it('names no path outside the repository', () => {
    expect(text).not.toMatch(/\.\.\/shared\b|\.\.\/\.\.\//);
  });
});
