// V8 CPU profiles (`.cpuprofile`: Node's `--cpu-prof`, or the DevTools protocol's Profiler domain,
// which workerd's inspector speaks) read back by package: each sample goes to the package of its
// innermost frame inside one bundle, looked up in the bundle's source map. Used by
// `npm run bench:startup-profile` and by `npm run bench:edge` with EDGE_PROFILE set.
import { readFileSync } from 'node:fs';
import { SourceMapConsumer } from 'source-map-js';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export const TOP_LEVEL = "the bundle's own top level";

/** `node_modules/@scope/pkg/...` → `@scope/pkg`; our files → "ours"; no source → the top level */
export function packageOf(source: string | null): string {
  if (!source) return TOP_LEVEL;
  const inModules = source.split('node_modules/').pop() ?? source;
  if (inModules === source) return 'ours';
  const parts = inModules.split('/');
  return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? source);
}

/**
 * Sums profiles' samples by package. `bundle` is the bundle's path (its `.map` beside it) and
 * `inBundle` tells its frames by their URL; `keep` chooses samples by their stack (innermost
 * first), all of them by default. A sample with no frame in the bundle goes to `outside`. Each
 * sample weighs its time since the previous one (µs, as DevTools counts), or 1 with `bySamples`:
 * workerd's inspector samples far more sparsely than asked (every 3-50 ms), so a gap's time there
 * says nothing of what ran in it, while the samples themselves still fall at random.
 */
export function samplesByPackage(
  profiles: readonly Profile[],
  o: {
    bundle: string;
    inBundle: (url: string) => boolean;
    outside: string;
    keep?: (stack: readonly ProfileNode['callFrame'][]) => boolean;
    bySamples?: boolean;
  },
): { total: number; byPackage: Map<string, number> } {
  const map = new SourceMapConsumer(JSON.parse(readFileSync(`${o.bundle}.map`, 'utf8')));
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    profile.samples.forEach((sample, i) => {
      const stack: ProfileNode['callFrame'][] = [];
      for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
        const frame = nodes.get(id)?.callFrame;
        if (!frame) break;
        stack.push(frame);
      }
      if (o.keep && !o.keep(stack)) return;
      const innermost = stack.find((f) => o.inBundle(f.url));
      const key = innermost
        ? packageOf(
            map.originalPositionFor({ line: innermost.lineNumber + 1, column: innermost.columnNumber })
              .source,
          )
        : o.outside;
      const weight = o.bySamples ? 1 : (profile.timeDeltas[i] ?? 0);
      total += weight;
      byPackage.set(key, (byPackage.get(key) ?? 0) + weight);
    });
  }
  return { total, byPackage: new Map([...byPackage].sort((a, b) => b[1] - a[1])) };
}
