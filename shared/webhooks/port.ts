import type { DeliveryTransport, HostResolver, TransportAnswer, WebhookPort } from '../context/webhook-port';

// the port's types live in context (the services carry the port); here are its web-standard parts
export type {
  DeliveryTransport,
  HostResolver,
  Signer,
  TransportAnswer,
  TransportRequest,
  TransportResult,
  WebhookPort,
} from '../context/webhook-port';

/** How much of a receiver's answer body an attempt keeps (the delivery detail shows it). */
export const RESPONSE_BODY_LIMIT = 4096;

const utf8 = new TextDecoder();
/**
 * The kept part of a body read so far (at most one byte past the limit is needed to know it went on).
 * NUL becomes U+FFFD: Postgres text cannot hold it, and a binary answer must not fail the recording.
 */
export function keptBody(chunks: readonly Uint8Array[]): Pick<TransportAnswer, 'body' | 'bodyTruncated'> {
  let size = 0;
  for (const c of chunks) size += c.byteLength;
  const bytes = new Uint8Array(Math.min(size, RESPONSE_BODY_LIMIT));
  let at = 0;
  for (const c of chunks) {
    if (at >= bytes.length) break;
    const part = c.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.byteLength;
  }
  return {
    body: utf8.decode(bytes).replaceAll('\u0000', '\uFFFD'),
    bodyTruncated: size > RESPONSE_BODY_LIMIT,
  };
}

/** Schedules attempt `attempt` of a delivery at `at` (QStash on the edge; the DB poll needs none). */
export interface RetryScheduler {
  /** `key` tells apart two schedules of one attempt (a paced attempt handed back, due again later) */
  schedule(deliveryId: string, attempt: number, at: Date, key?: string): Promise<void>;
  /** probe number `probe` of a failing endpoint, due at `at` */
  scheduleProbe?(webhookId: string, probe: number, at: Date): Promise<void>;
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
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return { status: res.status, headers, ...(await readKept(res.body)) };
  } catch (err) {
    if (controller.signal.aborted) return { status: null, error: `Timed out after ${request.timeoutMs} ms` };
    return { status: null, error: `Request failed: ${(err as Error).message ?? String(err)}`.slice(0, 500) };
  } finally {
    clearTimeout(timer);
  }
};

/** Reads a body up to just past RESPONSE_BODY_LIMIT, then lets the rest go (the connection is released). */
async function readKept(stream: ReadableStream<Uint8Array> | null) {
  const chunks: Uint8Array[] = [];
  if (!stream) return keptBody(chunks);
  const reader = stream.getReader();
  let size = 0;
  try {
    while (size <= RESPONSE_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // cut off mid-body (the timeout's abort included): what arrived is what the attempt keeps
  } finally {
    reader.cancel().catch(() => {});
  }
  return keptBody(chunks);
}

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
