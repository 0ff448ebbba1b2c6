import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { longFunctionExceptions } from '../../scripts/lib/function-length';

// scripts/check-function-length.ts: Biome's rule finds the long functions (biome.json), the script
// counts the ones excused against the budget of three.
describe('function length', () => {
  it("biome.json holds the shipped code to Biome's 80-line rule (and the tests to none)", () => {
    const config = JSON.parse(readFileSync('biome.json', 'utf8')) as {
      overrides: { includes: string[]; linter?: { rules?: Record<string, Record<string, unknown>> } }[];
    };
    const holding = config.overrides.filter((o) => o.linter?.rules?.complexity?.noExcessiveLinesPerFunction);
    expect(holding).toHaveLength(1);
    expect(holding[0]!.includes).toEqual(expect.arrayContaining(['functions/**', 'shared/**', 'scripts/**']));
    expect(holding[0]!.includes.some((p) => p.startsWith('test'))).toBe(false);
    expect(holding[0]!.linter!.rules!.complexity!.noExcessiveLinesPerFunction).toEqual({
      level: 'error',
      options: { maxLines: 80 },
    });
  });

  it('counts each excused function once, with its reason, and nothing else', () => {
    const text = [
      'const a = 1;',
      '// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one idea, one place',
      'function long() {}',
      '// biome-ignore lint/suspicious/noExplicitAny: another rule',
      '  // biome-ignore lint/complexity/noExcessiveLinesPerFunction: indented too',
      "const s = 'biome-ignore lint/complexity/noExcessiveLinesPerFunction: in a string';",
    ].join('\n');
    expect(longFunctionExceptions(text)).toEqual([
      { line: 2, reason: 'one idea, one place' },
      { line: 5, reason: 'indented too' },
    ]);
  });
});
