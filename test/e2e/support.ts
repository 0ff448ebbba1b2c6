// Helpers of the e2e tier: plain fetch against the edge stack (the URL comes from globalSetup).
import { inject } from 'vitest';
import { type Role, signDashboardToken } from '../../shared/auth/jwt';

export interface EdgeResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export const edgeUrl = () => inject('edgeUrl');
export const bindings = () => inject('edgeBindings');

export async function call<T = any>(
  method: string,
  path: string,
  options: {
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    apiKey?: string;
    bearer?: string;
  } = {},
): Promise<EdgeResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.apiKey) headers['X-API-Key'] = options.apiKey;
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(`${edgeUrl()}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export const token = (role: Role, tenantId: string, sub = `user_${role}`) =>
  signDashboardToken(bindings().DASHBOARD_JWT_SECRET as string, { sub, tenant_id: tenantId, role });

export interface EdgeTenant {
  id: string;
  adminToken: string;
  key(scopes: string[]): Promise<string>;
}

/** A tenant and its admin, made through the edge's own tenants and api-keys functions. */
export async function edgeTenant(plan = 'enterprise'): Promise<EdgeTenant> {
  const created = await call('POST', '/api/v1/tenants', {
    bearer: await token('super_admin', 'platform'),
    body: { name: 'E2E Tenant', plan, environment: 'production' },
  });
  if (created.status !== 201) throw new Error(`tenant: ${created.status} ${created.text}`);
  const id = created.body.id as string;
  const adminToken = await token('tenant_admin', id, 'user_admin');
  return {
    id,
    adminToken,
    async key(scopes) {
      const res = await call('POST', '/api/v1/api-keys', {
        bearer: adminToken,
        body: { name: 'e2e key', scopes },
      });
      if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
      return res.body.api_key as string;
    },
  };
}

/** What globalSetup sees and the test files cannot: workerd's R2 keys, the QStash stand-in's log. */
export async function inspect<T = any>(path: string): Promise<T> {
  const res = await fetch(`${inject('edgeInspectUrl')}${path}`);
  if (!res.ok) throw new Error(`inspector ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export const bucketKeys = (prefix: string) => inspect<string[]>(`/r2?prefix=${encodeURIComponent(prefix)}`);

/** Polls `probe` until it returns a value (not undefined) or `attempts` run out (no wall-clock assertion). */
export async function eventually<T>(probe: () => Promise<T | undefined>, attempts = 150, pauseMs = 200) {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  throw new Error('condition not reached');
}
