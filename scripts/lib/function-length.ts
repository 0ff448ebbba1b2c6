// The long functions a source text excuses from Biome's `noExcessiveLinesPerFunction` (biome.json),
// each by a suppression comment that gives its reason: what scripts/check-function-length.ts counts
// against the project's budget.

export interface LongFunctionException {
  /** 1-based line of the comment (the function starts on the next). */
  line: number;
  reason: string;
}

const SUPPRESSION = /^\s*\/\/\s*biome-ignore\s+lint\/complexity\/noExcessiveLinesPerFunction\s*:?\s*(.*)$/;

export function longFunctionExceptions(text: string): LongFunctionException[] {
  const out: LongFunctionException[] = [];
  text.split('\n').forEach((source, i) => {
    const m = SUPPRESSION.exec(source);
    if (m) out.push({ line: i + 1, reason: m[1]!.trim() });
  });
  return out;
}
