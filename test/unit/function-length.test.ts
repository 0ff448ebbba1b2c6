import { describe, expect, it } from 'vitest';
import { functionSpans, longFunctions } from '../../scripts/lib/function-length';

// scripts/check-function-length.ts lists the long functions of the tree; its counting, on a fixture.
const FIXTURE = [
  'export function declared(a: number) {', // 1
  '  const inner = (b: number) => {', // 2
  '    return a + b;', // 3
  '  };', // 4
  '  return inner(1);', // 5
  '}', // 6
  'const expression = function () { return 1; };', // 7
  'class Box {', // 8
  '  constructor() {}', // 9
  '  open(): void {', // 10
  '    void 0;', // 11
  '  }', // 12
  '  get size() { return 1; }', // 13
  '}', // 14
  'export const handlers = { list: async () => {', // 15
  '  return [];', // 16
  '} };', // 17
  'export default () =>', // 18
  '  1;', // 19
  'declare function bodiless(): void;', // 20
  'type Fn = (x: number) => number;', // 21
].join('\n');

describe('function length', () => {
  it('finds every kind of function with its own span, from first to last line', () => {
    const spans = functionSpans('fixture.ts', FIXTURE).map((s) => `${s.name}@${s.line}:${s.length}`);
    expect(spans).toEqual([
      'declared@1:6',
      'inner@2:3',
      'expression@7:1',
      'constructor@9:1',
      'open@10:3',
      'size@13:1',
      'list@15:3',
      'default@18:2',
    ]);
  });

  it('keeps only the functions over the limit, longest first', () => {
    expect(longFunctions('fixture.ts', FIXTURE, 2).map((s) => s.name)).toEqual([
      'declared',
      'inner',
      'open',
      'list',
    ]);
    expect(longFunctions('fixture.ts', FIXTURE, 6)).toEqual([]);
  });

  it('parses JSX in .tsx files', () => {
    const page = 'export function Page() {\n  return <div>\n    hi\n  </div>;\n}\n';
    expect(functionSpans('page.tsx', page)).toEqual([{ name: 'Page', line: 1, length: 5 }]);
  });
});
