/**
 * The webhook (outbound URL) port: the runtime-specific pieces of delivering to an admin-configured
 * URL (Services.webhooks). Declared here, beside the services that carry it, so context names its
 * ports without knowing their implementations (shared/webhooks/port.ts for fetch and DNS-over-HTTPS,
 * shared/webhooks/transport.node.ts for Node's resolver and pinned connections).
 */

/** Resolves a host name to its IPv4/IPv6 addresses; [] (or a throw) when it does not resolve. */
export type HostResolver = (host: string) => Promise<string[]>;

/** One outbound attempt. Redirects are never followed: a 3xx is a failed attempt. */
export interface TransportRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** addresses the SSRF check accepted; a transport that can pins the connection to one of them */
  addresses: string[];
}

/** The receiver's answer, as an attempt keeps it. */
export interface TransportAnswer {
  status: number;
  /** names lower-cased; repeated headers joined with `, ` */
  headers: Record<string, string>;
  /** the first RESPONSE_BODY_LIMIT bytes (shared/webhooks/port.ts) as UTF-8 text (a character cut at the limit becomes U+FFFD) */
  body: string;
  /** the body went on past RESPONSE_BODY_LIMIT bytes */
  bodyTruncated: boolean;
}

export type TransportResult =
  | TransportAnswer
  /** no HTTP answer: timeout, connection refused, TLS failure */
  | { status: null; error: string };

export type DeliveryTransport = (request: TransportRequest) => Promise<TransportResult>;

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
