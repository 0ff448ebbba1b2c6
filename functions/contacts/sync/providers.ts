import ipaddr from 'ipaddr.js';
import * as z from 'zod';
import type { SyncProvider } from '../../../shared/db/tables/contacts_kb';
import { type HostResolver, hostOf, isPublicAddress } from '../../../shared/webhooks/ssrf';

/**
 * External helpdesks behind one interface. Each provider speaks its own paged JSON API (both are
 * invented and documented in docs/contacts.md); `fetchPage` turns one page into normalized
 * upstream contacts plus the cursor of the next page (null on the last page).
 */

export interface UpstreamContact {
  external_id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  mobile: string | null;
  company_name: string | null;
  active: boolean;
}

export interface ProviderConnection {
  baseUrl: string;
  token: string;
}

export interface FetchOptions {
  updatedSince: Date | null;
  timeoutMs: number;
}

export interface ProviderPage {
  contacts: UpstreamContact[];
  next: string | null;
}

export interface ContactProvider {
  type: SyncProvider;
  source: 'helpdesk_a_sync' | 'helpdesk_b_sync';
  fetchPage(conn: ProviderConnection, cursor: string | null, options: FetchOptions): Promise<ProviderPage>;
}

export class UpstreamError extends Error {}

/** Trimmed; empty is null. */
const clean = (v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  const s = String(v).trim();
  return s.length === 0 ? null : s.slice(0, 1000);
};
const cleanEmail = (v: unknown) => clean(v)?.toLowerCase() ?? null;

const join = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

async function getJson(url: string, headers: Record<string, string>, timeoutMs: number): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { Accept: 'application/json', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const reason = (err as Error)?.name === 'TimeoutError' ? 'timed out' : 'unreachable';
    throw new UpstreamError(`request ${reason}`);
  }
  if (res.status < 200 || res.status >= 300) {
    await res.body?.cancel();
    throw new UpstreamError(`HTTP ${res.status}`);
  }
  try {
    return await res.json();
  } catch {
    throw new UpstreamError('response is not JSON');
  }
}

const Id = z.union([z.string().min(1).max(255), z.number().int()]).transform(String);
const Loose = z.unknown().optional();

/** Helpdesk A: `GET {base}/api/users?page=N&per_page=100[&updated_since=ISO]`, `Authorization: Bearer`. */
const APage = z.object({
  users: z.array(
    z.object({
      id: Id,
      first_name: Loose,
      last_name: Loose,
      email: Loose,
      phone: Loose,
      mobile: Loose,
      company: Loose,
      active: z.boolean().optional(),
    }),
  ),
  next_page: z.number().int().positive().nullable().optional(),
});

export const helpdeskA: ContactProvider = {
  type: 'helpdesk_a',
  source: 'helpdesk_a_sync',
  async fetchPage(conn, cursor, options) {
    const page = cursor ?? '1';
    const url = new URL(join(conn.baseUrl, '/api/users'));
    url.searchParams.set('page', page);
    url.searchParams.set('per_page', '100');
    if (options.updatedSince) url.searchParams.set('updated_since', options.updatedSince.toISOString());
    const raw = await getJson(url.toString(), { Authorization: `Bearer ${conn.token}` }, options.timeoutMs);
    const parsed = APage.safeParse(raw);
    if (!parsed.success) throw new UpstreamError('malformed page');
    const next = parsed.data.next_page ?? null;
    if (next !== null && next <= Number(page)) throw new UpstreamError('next_page does not advance');
    return {
      contacts: parsed.data.users.map((u) => ({
        external_id: u.id,
        first_name: clean(u.first_name),
        last_name: clean(u.last_name),
        email: cleanEmail(u.email),
        phone: clean(u.phone),
        mobile: clean(u.mobile),
        company_name: clean(u.company),
        active: u.active ?? true,
      })),
      next: next === null ? null : String(next),
    };
  },
};

/** Helpdesk B: `GET {base}/contacts?limit=100[&cursor=C][&modified_since=ISO]`, `X-Api-Key`. */
const BPage = z.object({
  data: z.array(
    z.object({
      contact_id: Id,
      given_name: Loose,
      family_name: Loose,
      email_address: Loose,
      phone_number: Loose,
      mobile_number: Loose,
      organization: z.object({ name: Loose }).nullable().optional(),
      status: z.enum(['active', 'archived']).optional(),
    }),
  ),
  meta: z.object({ next_cursor: z.string().min(1).max(1000).nullable().optional() }),
});

export const helpdeskB: ContactProvider = {
  type: 'helpdesk_b',
  source: 'helpdesk_b_sync',
  async fetchPage(conn, cursor, options) {
    const url = new URL(join(conn.baseUrl, '/contacts'));
    url.searchParams.set('limit', '100');
    if (cursor) url.searchParams.set('cursor', cursor);
    if (options.updatedSince) url.searchParams.set('modified_since', options.updatedSince.toISOString());
    const raw = await getJson(url.toString(), { 'X-Api-Key': conn.token }, options.timeoutMs);
    const parsed = BPage.safeParse(raw);
    if (!parsed.success) throw new UpstreamError('malformed page');
    return {
      contacts: parsed.data.data.map((u) => ({
        external_id: u.contact_id,
        first_name: clean(u.given_name),
        last_name: clean(u.family_name),
        email: cleanEmail(u.email_address),
        phone: clean(u.phone_number),
        mobile: clean(u.mobile_number),
        company_name: clean(u.organization?.name),
        active: (u.status ?? 'active') === 'active',
      })),
      next: parsed.data.meta.next_cursor ?? null,
    };
  },
};

export const PROVIDERS: Record<SyncProvider, ContactProvider> = {
  helpdesk_a: helpdeskA,
  helpdesk_b: helpdeskB,
};

/**
 * The admin-supplied base URL: https, no credentials in it, and no IP literal in a private,
 * loopback or otherwise non-public range, unless its host is on SYNC_HTTP_ALLOW_HOSTS (local
 * fakes). No I/O: a host name is checked by refuseBaseUrlResolved. Returns the reason it is
 * refused, or null.
 */
export function refuseBaseUrl(raw: string, allowHosts: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'base_url is not a valid URL';
  }
  if (url.username || url.password) return 'base_url must not contain credentials';
  if (url.search || url.hash) return 'base_url must not contain a query or fragment';
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (allowHosts.includes(host)) {
    return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'base_url must use https';
  }
  if (url.protocol !== 'https:') return 'base_url must use https';
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.internal') ||
    host.endsWith('.local')
  )
    return 'base_url must be a public host';
  if (ipaddr.isValid(host)) {
    let addr = ipaddr.parse(host);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
      addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.range() !== 'unicast') return 'base_url must be a public host';
  } else if (/^[0-9.]+$/.test(host) || /^0x/i.test(host)) {
    return 'base_url must be a public host';
  }
  return null;
}

/**
 * refuseBaseUrl, then the host name resolved (Node: getaddrinfo; Workers: DNS over HTTPS) and
 * refused unless every address is public, as webhook URLs are. Checked when the connection is saved
 * and again before every run; the run's own connection may still resolve anew (DNS rebinding is
 * narrowed, not closed: docs/contacts.md).
 */
export async function refuseBaseUrlResolved(
  raw: string,
  allowHosts: readonly string[],
  resolve: HostResolver,
): Promise<string | null> {
  const refused = refuseBaseUrl(raw, allowHosts);
  if (refused) return refused;
  const host = hostOf(new URL(raw));
  if (allowHosts.includes(host) || ipaddr.isValid(host)) return null; // literals were checked above
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return 'base_url host does not resolve';
  return addresses.every(isPublicAddress) ? null : 'base_url must be a public host';
}
