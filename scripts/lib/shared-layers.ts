// The layer order of shared/: a module imports only modules of its own layer or of layers below it
// (type-only imports count: they are arrows a reader follows too). scripts/check-imports.ts applies
// it to the tree; test/unit/shared-layers.test.ts shows it refuses an upward import.

/** Lowest first; a name is a folder of shared/ or a file directly in it (without `.ts`). */
export const SHARED_LAYERS: readonly (readonly string[])[] = [
  // no knowledge of the domain: hashing, ids, the sync-first helper, logging, the environment
  ['crypto', 'ids', 'sync-first', 'log', 'env'],
  // outbound adapters configured from the environment alone
  ['mail', 'redis', 'storage'],
  // the schema, queries' helpers and the database adapters
  ['db'],
  // the event catalog and the outbox write
  ['events'],
  // what a request carries: the services, the credential, the Hono environment
  ['context'],
  // errors, validation, pagination, CORS, idempotency, route declarations and the OpenAPI document
  ['http'],
  // credentials, the gate and the access rules' compiler
  ['auth'],
  // the features built on them
  [
    'ratelimit',
    'usage',
    'audit',
    'calls',
    'tickets',
    'webhooks',
    'files',
    'sla',
    'helpdesk',
    'conversations',
    'contacts',
    'search',
  ],
  // the composition of all of it per runtime
  ['runtime'],
];

const LAYER_OF = new Map(SHARED_LAYERS.flatMap((names, layer) => names.map((n) => [n, layer] as const)));

/** `shared/http/errors.ts` -> `http`; `shared/ids.ts` -> `ids`; null outside shared/. */
export function sharedModuleOf(path: string): string | null {
  const m = /^shared\/([^/]+?)(?:\.tsx?)?(?:\/|$)/.exec(path);
  return m ? m[1]! : null;
}

/**
 * The violations of the layer order among `edges` (paths relative to the repository): an import of
 * a higher layer, or of a module the order does not place (a new folder must be given its layer).
 */
export function layerViolations(edges: readonly (readonly [from: string, to: string])[]): string[] {
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = sharedModuleOf(from);
    const b = sharedModuleOf(to);
    if (a === null || b === null || a === b) continue;
    const la = LAYER_OF.get(a);
    const lb = LAYER_OF.get(b);
    if (la === undefined || lb === undefined)
      out.push(`shared module without a layer (scripts/lib/shared-layers.ts): ${la === undefined ? a : b}`);
    else if (lb > la) out.push(`upward import in shared (${a} below ${b}): ${from} -> ${to}`);
  }
  return out;
}
