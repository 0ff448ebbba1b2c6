// The console's built bundle (functions/console/assets.gen.ts) is committed so `npm start` and the
// Worker need no build step; this fails when it no longer matches functions/console/ui.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildConsoleModule, GENERATED } from '../../scripts/console/build';
import { KEY_DIALOG_SCOPE_GROUPS, SCOPE_CATALOG } from '../../shared/context/scopes';

const ROOT = join(import.meta.dirname, '..', '..');

describe('console bundle', () => {
  it('assets.gen.ts is what functions/console/ui builds to (run `npm run build:console`)', async () => {
    const fresh = await buildConsoleModule();
    expect(readFileSync(GENERATED, 'utf8') === fresh, 'functions/console/assets.gen.ts is stale').toBe(true);
  }, 60_000);

  it('no console source writes raw HTML or keeps a token in localStorage', () => {
    const dir = join(ROOT, 'functions', 'console', 'ui');
    const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(sources.length).toBeGreaterThan(5);
    // the one thing localStorage may hold: the tenant id of the last sign-in that gave one (not a secret)
    const lastTenant = /localStorage\.(getItem|setItem|removeItem)\(LAST_TENANT_KEY\b/g;
    let allowed = 0;
    for (const f of sources) {
      const text = readFileSync(join(dir, f), 'utf8');
      allowed += text.match(lastTenant)?.length ?? 0;
      expect(text.replace(lastTenant, ''), f).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|localStorage/,
      );
    }
    expect(allowed).toBe(2);
  });
});

describe('the key-creation dialog scopes (spec: "offers only Conversations, Tickets, Calls, Usage (read only), Webhooks and Knowledge Base")', () => {
  const offered = KEY_DIALOG_SCOPE_GROUPS.flatMap((g) => g.scopes);

  it('offers exactly those six groups', () => {
    expect(KEY_DIALOG_SCOPE_GROUPS.map((g) => g.label)).toEqual([
      'Conversations',
      'Tickets',
      'Calls',
      'Usage (read only)',
      'Webhooks',
      'Knowledge Base',
    ]);
  });

  it('never offers a scope the spec reserves for POST /api/v1/api-keys', () => {
    const apiOnly = [
      'billing:read',
      'billing:write',
      'config:read',
      'config:write',
      'contacts:read',
      'contacts:write',
      'exports:read',
      'exports:write',
      'roles:write',
      'usage:write',
      'users:read',
      'users:write',
    ];
    expect(offered.filter((s) => apiOnly.includes(s))).toEqual([]);
    // every catalog scope is either offered by the dialog or API-only
    expect(SCOPE_CATALOG.filter((s) => !offered.includes(s) && !apiOnly.includes(s))).toEqual([]);
  });
});
