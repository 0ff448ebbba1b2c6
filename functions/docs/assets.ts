// The reference page's static files: Swagger UI from the `swagger-ui-dist` npm package (no CDN).
// On Workers they are static assets (binding ASSETS, uploaded from dist/docs-assets by the deploy;
// ~1.7 MB in the Worker would be evaluated on every cold start). In the embedded runtime they are read from
// node_modules through Node's `process.getBuiltinModule` (Node >= 20.16): no `node:` import, so
// nothing Node-only is bundled into the Worker, and this branch never runs there.

/** file name -> content type. Keep in step with DOCS_ASSET_FILES in scripts/edge/config.ts. */
export const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

interface NodeFs {
  readFileSync(path: string): Uint8Array;
}
interface NodeModule {
  createRequire(from: string): { resolve(id: string): string };
}
type GetBuiltin = (id: string) => unknown;

const cache = new Map<string, Uint8Array>();

/** Reads an asset from node_modules/swagger-ui-dist, or `null` when not on Node. */
export function readNodeAsset(file: string): Uint8Array | null {
  const cached = cache.get(file);
  if (cached) return cached;
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: GetBuiltin } }).process
    ?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') return null;
  const fs = getBuiltin('fs') as NodeFs;
  const mod = getBuiltin('module') as NodeModule;
  const dir = mod
    .createRequire(import.meta.url)
    .resolve('swagger-ui-dist/package.json')
    .replace(/package\.json$/, '');
  const bytes = fs.readFileSync(`${dir}${file}`);
  cache.set(file, bytes);
  return bytes;
}
