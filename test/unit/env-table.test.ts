import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EnvSchema, loadConfig, READ_ELSEWHERE } from '../../shared/env';

/**
 * docs/deploy.md's "Environment variables" table against shared/env.ts, both ways: every variable
 * the server reads is documented with the default it really has, and the table names no variable
 * the code does not read. The schema is the source; the table is its prose.
 */
interface Row {
  names: string[];
  defaultCell: string;
}

function tableRows(): Row[] {
  const doc = readFileSync('docs/deploy.md', 'utf8');
  const section = doc.split('\n## Environment variables\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [first = '', defaultCell = ''] = line.split(' | ');
      return {
        names: [...first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] as string),
        defaultCell: defaultCell.trim(),
      };
    });
}

const SCHEMA_NAMES = Object.keys(EnvSchema.shape);
// the schema's own defaults, and those loadConfig adds (development's well-known secrets)
const SCHEMA_DEFAULTS = EnvSchema.parse({}) as Record<string, unknown>;
const CONFIG_DEFAULTS = loadConfig({}) as unknown as Record<string, unknown>;

/** What the table's default column must say for a schema variable. */
function expectedDefault(name: string): ((cell: string) => boolean) | string {
  const own = SCHEMA_DEFAULTS[name];
  if (Array.isArray(own) && own.length === 0) return 'empty';
  if (own !== undefined) return `\`${String(own)}\``;
  if (CONFIG_DEFAULTS[name] !== undefined) return 'dev default';
  // no value of its own: unset, or the variable (or placeholder) it falls back to
  return (cell) =>
    cell === 'unset' ||
    ([...cell.matchAll(/`([^`]+)`/g)].every(
      (m) => SCHEMA_NAMES.includes(m[1] as string) || /^<.+>/.test(m[1] as string),
    ) &&
      /`/.test(cell));
}

describe('the environment table (docs/deploy.md)', () => {
  const rows = tableRows();
  const documented = rows.flatMap((r) => r.names);

  it('names each variable once', () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(documented.filter((n, i) => documented.indexOf(n) !== i)).toEqual([]);
  });

  it('documents every variable shared/env.ts reads, and none it does not know', () => {
    const known = [...SCHEMA_NAMES, ...Object.keys(READ_ELSEWHERE)];
    expect(
      known.filter((n) => !documented.includes(n)),
      'read but not documented',
    ).toEqual([]);
    expect(
      documented.filter((n) => !known.includes(n)),
      'documented but not in shared/env.ts',
    ).toEqual([]);
  });

  it('gives every schema variable the default the schema gives it', () => {
    const wrong: string[] = [];
    for (const row of rows)
      for (const name of row.names.filter((n) => SCHEMA_NAMES.includes(n))) {
        const expected = expectedDefault(name);
        const ok = typeof expected === 'string' ? row.defaultCell === expected : expected(row.defaultCell);
        if (!ok)
          wrong.push(
            `${name}: table says ${row.defaultCell}, expected ${typeof expected === 'string' ? expected : 'unset or its fallback'}`,
          );
      }
    expect(wrong).toEqual([]);
  });

  it('has each variable read elsewhere really read in the file READ_ELSEWHERE names', () => {
    const notRead = Object.entries(READ_ELSEWHERE).filter(([name, file]) => {
      if (!existsSync(file)) return true;
      // a read, not a mention in a comment: `env.NAME` or the name as a string
      return !new RegExp(`env\\.${name}\\b|['"\`]${name}['"\`]`).test(readFileSync(file, 'utf8'));
    });
    expect(notRead).toEqual([]);
  });
});
