import type { HostResolver } from './ssrf';

/** One outbound attempt. Redirects are never followed: a 3xx is a failed attempt. */
export interface TransportRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** addresses the SSRF check accepted; a transport that can pins the connection to one of them */
  addresses: string[];
}

export type TransportResult =
  | { status: number }
  /** no HTTP answer: timeout, connection refused, TLS failure */
  | { status: null; error: string };

export type DeliveryTransport = (request: TransportRequest) => Promise<TransportResult>;

/** Schedules attempt `attempt` of a delivery at `at` (QStash on the edge; the DB poll needs none). */
export interface RetryScheduler {
  schedule(deliveryId: string, attempt: number, at: Date): Promise<void>;
}

/** Lowercase hex HMAC-SHA256 of `message` keyed with `secret` (X-Webhook-Signature). */
export type Signer = (secret: string, message: string) => string | Promise<string>;

/** The runtime-specific pieces of webhook delivery (Services.webhooks). */
export interface WebhookPort {
  resolveHost: HostResolver;
  transport: DeliveryTransport;
  /**
   * Signs each attempt; WebCrypto (shared/crypto.ts) when absent. Node passes `createHmac`: WebCrypto's
   * HMAC is a thread-pool round trip per attempt there, synchronous HMAC a few microseconds.
   */
  sign?: Signer;
}

/** Web-standard transport (Workers, or Node's fetch): `redirect: 'manual'`, AbortController timeout. */
export const fetchTransport: DeliveryTransport = async (request) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.timeoutMs);
  try {
    const res = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    // the body is not kept (the log never exposes it); drain it so the connection is released
    await res.body?.cancel().catch(() => {});
    return { status: res.status };
  } catch (err) {
    if (controller.signal.aborted) return { status: null, error: `Timed out after ${request.timeoutMs} ms` };
    return { status: null, error: `Request failed: ${(err as Error).message ?? String(err)}`.slice(0, 500) };
  } finally {
    clearTimeout(timer);
  }
};

/** DNS-over-HTTPS (Cloudflare's JSON API): the Workers resolver. A and AAAA answers only. */
export function dohResolver(
  endpoint = 'https://cloudflare-dns.com/dns-query',
  timeoutMs = 5000,
): HostResolver {
  const query = async (host: string, type: 'A' | 'AAAA') => {
    const url = `${endpoint}?name=${encodeURIComponent(host)}&type=${type}`;
    const res = await fetch(url, {
      headers: { accept: 'application/dns-json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`DoH ${res.status}`);
    const json = (await res.json()) as { Status?: number; Answer?: { type: number; data: string }[] };
    const want = type === 'A' ? 1 : 28;
    return (json.Answer ?? []).filter((a) => a.type === want).map((a) => a.data);
  };
  return async (host) => {
    const [a, aaaa] = await Promise.allSettled([query(host, 'A'), query(host, 'AAAA')]);
    if (a.status === 'rejected' && aaaa.status === 'rejected') throw a.reason;
    return [...(a.status === 'fulfilled' ? a.value : []), ...(aaaa.status === 'fulfilled' ? aaaa.value : [])];
  };
}

/** The edge default: DoH + fetch. */
export const edgeWebhookPort = (): WebhookPort => ({ resolveHost: dohResolver(), transport: fetchTransport });

let edgeDefault: WebhookPort | null = null;
/** The runtime's outbound port (Services.webhooks), or the edge default: for webhooks and every other admin-configured URL. */
export function outboundPortOf(services: { webhooks?: WebhookPort }): WebhookPort {
  if (services.webhooks) return services.webhooks;
  edgeDefault ??= edgeWebhookPort();
  return edgeDefault;
}
