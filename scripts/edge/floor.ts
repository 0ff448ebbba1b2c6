// The lines `npm run build:edge` and `npm run bench:edge` print for each Worker and case against the
// bare Hono Worker (scripts/edge/bare/index.ts), the floor measured in the same run. Other tools
// parse them: each line's prefix (up to the ratio's `x`) stays exactly as written here; the
// verdict follows it.

/** Every Worker's startup within this many times the bare Worker's. */
export const STARTUP_RATIO_TARGET = 5;

/** The most workerd CPU per request each bench case may take, in bare Worker requests. */
export const CPU_RATIO_TARGETS: Readonly<Record<string, number>> = {
  'ticket-read': 3,
  'ticket-list': 3,
  'ticket-create': 5,
};

const verdict = (ratio: number, target: number | undefined) =>
  target === undefined ? 'for comparison' : `(target <= ${target}x): ${ratio <= target ? 'MET' : 'MISSED'}`;

/**
 * `startup <name>: <x> ms, bare <y> ms, <r>x (target <= 5x): MET|MISSED`. Startup is read in whole
 * milliseconds, so a floor under one reads 0; the ratio then takes the clock's resolution (1 ms) as
 * the floor, which flatters no Worker.
 */
export function startupLine(name: string, ms: number, bareMs: number): string {
  const ratio = ms / Math.max(bareMs, 1);
  return `startup ${name}: ${ms} ms, bare ${bareMs} ms, ${ratio.toFixed(1)}x ${verdict(ratio, STARTUP_RATIO_TARGET)}`;
}

/**
 * `edge <case>: cpu <x> ms per request, bare <y> ms, <r>x (target <= 3x): MET|MISSED`, or `for
 * comparison` for a case without a target. CPU is counted in 10 ms ticks: a floor that reads 0 gives
 * no ratio (Infinity, never MET).
 */
export function cpuLine(name: string, ms: number, bareMs: number, target: number | undefined): string {
  const ratio = bareMs > 0 ? ms / bareMs : Number.POSITIVE_INFINITY;
  return `edge ${name}: cpu ${ms.toFixed(2)} ms per request, bare ${bareMs.toFixed(2)} ms, ${ratio.toFixed(1)}x ${verdict(ratio, target)}`;
}
