import ipaddr from 'ipaddr.js';
import type { HostResolver } from '../context/webhook-port';

/**
 * Where a webhook may be sent (docs/webhooks.md "Address rules (SSRF)"). The same
 * check runs at creation and before every attempt, so a host that re-binds to a private address
 * later gets nothing. Only plain global unicast addresses pass: private, loopback, link-local
 * (cloud metadata 169.254.169.254 included), CGNAT, multicast, unspecified, broadcast, reserved,
 * unique-local IPv6, IPv4-mapped/compatible forms of those, and the IPv6 translation ranges
 * (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo) are refused.
 */

export const WebhookUrlError = {
  notHttps: 'Webhook URL must start with https://',
  invalid: 'Webhook URL is not a valid URL',
  unresolvable: 'Webhook URL host could not be resolved',
  private: 'Webhook URL host resolves to a private or reserved address',
} as const;

export type { HostResolver } from '../context/webhook-port';

/** `unicast` for an address a webhook may reach; otherwise the range that refuses it. */
export function classifyAddress(address: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'invalid';
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible) reach the IPv4 address itself
    if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address().toString());
    const embedded = ipv4Compatible(v6);
    return embedded ? classifyAddress(embedded) : v6.range();
  }
  return (parsed as ipaddr.IPv4).range();
}

/**
 * `::a.b.c.d` (RFC 4291's deprecated IPv4-compatible form) as dotted IPv4; null otherwise, and for
 * `::` and `::1`, which are their own IPv6 ranges. ipaddr.js's toIPv4Address() accepts only the
 * mapped form (it throws on this one), hence the bytes are read here.
 */
function ipv4Compatible(v6: ipaddr.IPv6): string | null {
  const [p0, p1, p2, p3, p4, p5, hi = 0, lo = 0] = v6.parts;
  if (p0 || p1 || p2 || p3 || p4 || p5 || (hi === 0 && lo <= 1)) return null;
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

export const isPublicAddress = (address: string) => classifyAddress(address) === 'unicast';

/** The URL's host without IPv6 brackets or a trailing dot, lower-cased. */
export function hostOf(url: URL): string {
  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

export type DestinationCheck =
  | {
      ok: true;
      url: URL;
      host: string /** addresses checked; empty for an allow-listed host */;
      addresses: string[];
    }
  | { ok: false; detail: string };

export interface DestinationOptions {
  resolve: HostResolver;
  /** WEBHOOK_SSRF_ALLOW: host names exempt from the address check (local receivers only) */
  allow: readonly string[];
}

/** Checks the scheme only (first in the validation order: https before event names before DNS). */
export function parseHttpsUrl(raw: string): { ok: true; url: URL } | { ok: false; detail: string } {
  if (!/^https:\/\//i.test(raw)) return { ok: false, detail: WebhookUrlError.notHttps };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, detail: WebhookUrlError.invalid };
  }
  if (url.protocol !== 'https:' || !url.hostname) return { ok: false, detail: WebhookUrlError.invalid };
  return { ok: true, url };
}

/** Resolves the host and refuses any non-public address. IP literals (any notation) are not resolved. */
export async function checkDestination(raw: string, options: DestinationOptions): Promise<DestinationCheck> {
  const parsed = parseHttpsUrl(raw);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const host = hostOf(url);
  if (options.allow.includes(host)) return { ok: true, url, host, addresses: [] };
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    // WHATWG URL parsing already turned 0x7f.1, 2130706433, 127.1 into dotted IPv4
    addresses = [host];
  } else {
    try {
      addresses = await options.resolve(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) return { ok: false, detail: WebhookUrlError.unresolvable };
  }
  if (!addresses.every(isPublicAddress)) return { ok: false, detail: WebhookUrlError.private };
  return { ok: true, url, host, addresses };
}
