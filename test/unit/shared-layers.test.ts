import { describe, expect, it } from 'vitest';
import { layerViolations, SHARED_LAYERS, sharedModuleOf } from '../../scripts/lib/shared-layers';

// scripts/check-imports.ts holds shared/ to this order; the rule itself, on made-up imports.
describe('the layer order of shared/', () => {
  it('names a module by its folder, or by its file directly in shared/', () => {
    expect(sharedModuleOf('shared/http/errors.ts')).toBe('http');
    expect(sharedModuleOf('shared/db/adapters/pg.ts')).toBe('db');
    expect(sharedModuleOf('shared/ids.ts')).toBe('ids');
    expect(sharedModuleOf('functions/tickets/app.ts')).toBeNull();
  });

  it('lets a module import its own layer and the layers below', () => {
    expect(
      layerViolations([
        ['shared/http/errors.ts', 'shared/log/logger.ts'],
        ['shared/auth/gate.ts', 'shared/http/errors.ts'],
        ['shared/runtime/chain.ts', 'shared/auth/gate.ts'],
        ['shared/env.ts', 'shared/log/logger.ts'],
        ['shared/db/paging.ts', 'shared/db/schema.ts'],
      ]),
    ).toEqual([]);
  });

  it('refuses an upward import, naming both ends', () => {
    expect(layerViolations([['shared/db/references.ts', 'shared/http/errors.ts']])).toEqual([
      'upward import in shared (db below http): shared/db/references.ts -> shared/http/errors.ts',
    ]);
    expect(layerViolations([['shared/http/cors.ts', 'shared/auth/access.ts']])).toHaveLength(1);
  });

  it('refuses a module the order does not place', () => {
    expect(layerViolations([['shared/newthing/x.ts', 'shared/ids.ts']])).toEqual([
      'shared module without a layer (scripts/lib/shared-layers.ts): newthing',
    ]);
  });

  it('places every module of shared/ once', () => {
    const names = SHARED_LAYERS.flat();
    expect(new Set(names).size).toBe(names.length);
  });
});
