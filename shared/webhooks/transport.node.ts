// Node-only webhook adapters (embedded runtime, tests, benchmark): never imported by a Workers entry.

import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { type DeliveryTransport, keptBody, RESPONSE_BODY_LIMIT, type Signer, type WebhookPort } from './port';
import type { HostResolver } from './ssrf';

/** getaddrinfo (honours /etc/hosts like the connection itself would), bounded by a timeout. */
export const nodeResolver: HostResolver = async (host) => {
  const lookup = dns.lookup(host, { all: true, verbatim: true });
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('dns timeout')), 5000).unref(),
  );
  const results = await Promise.race([lookup, timeout]);
  return results.map((r) => r.address);
};

/**
 * Extra CAs from NODE_EXTRA_CA_CERTS. Node reads that variable once, at process start, into its
 * default trust store; when it changes later (e.g. a test file points it at a test certificate),
 * the new file is read here and passed as `ca`, so it still takes effect.
 */
const STARTUP_EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS;
let extraCa: { path: string; context: SecureContext } | null = null;
function extraCaContext(): SecureContext | undefined {
  const path = process.env.NODE_EXTRA_CA_CERTS;
  if (!path || path === STARTUP_EXTRA_CA) return undefined; // already in Node's default store
  if (extraCa?.path !== path) {
    let ca = [...rootCertificates];
    try {
      ca = [...ca, readFileSync(path, 'utf8')];
    } catch {
      /* unreadable: Node's own roots only */
    }
    // one context for every connection: building one per request costs a parse of ~150 roots
    extraCa = { path, context: createSecureContext({ ca }) };
  }
  return extraCa.context;
}

const defaultAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });
const agents = new WeakMap<SecureContext, https.Agent>();
function agentFor(context: SecureContext | undefined): https.Agent {
  if (!context) return defaultAgent;
  let agent = agents.get(context);
  if (!agent) {
    agent = new https.Agent({ keepAlive: true, maxSockets: 256, secureContext: context });
    agents.set(context, agent);
  }
  return agent;
}

/**
 * node:https transport: connects to the address the SSRF check accepted (no second DNS lookup,
 * so DNS rebinding between check and connect gets nothing), verifies TLS for the URL's host name,
 * never follows redirects.
 */
export const nodeTransport: DeliveryTransport = (request) =>
  new Promise((resolve) => {
    const pinned = request.addresses[0];
    const lookup: LookupFunction | undefined = pinned
      ? (_host, options, callback) => {
          const family = pinned.includes(':') ? 6 : 4;
          if ((options as { all?: boolean }).all)
            (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
              { address: pinned, family },
            ]);
          else callback(null, pinned, family);
        }
      : undefined;
    let settled = false;
    const done = (result: Awaited<ReturnType<DeliveryTransport>>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = https.request(
      request.url,
      {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        agent: agentFor(extraCaContext()),
        lookup,
      },
      (res) => {
        const headers = answerHeaders(res.rawHeaders);
        const chunks: Buffer[] = [];
        let size = 0;
        answered = () => done({ status: res.statusCode ?? 0, headers, ...keptBody(chunks) });
        // the first RESPONSE_BODY_LIMIT bytes (and one more to know it went on) are kept; the rest is
        // drained so the keep-alive connection is released
        res.on('data', (chunk: Buffer) => {
          if (size > RESPONSE_BODY_LIMIT) return;
          chunks.push(chunk);
          size += chunk.byteLength;
          if (size > RESPONSE_BODY_LIMIT) answered!();
        });
        res.on('end', () => answered!());
        res.on('error', () => answered!());
      },
    );
    /** set once the answer's head arrived: a timeout then ends the attempt with what came of the body */
    let answered: (() => void) | null = null;
    const timer = setTimeout(() => {
      if (answered) answered();
      else done({ status: null, error: `Timed out after ${request.timeoutMs} ms` });
      req.destroy();
    }, request.timeoutMs);
    req.on('error', (err) => done({ status: null, error: `Request failed: ${err.message}`.slice(0, 500) }));
    req.end(request.body);
  });

/**
 * The answer's headers by lower-cased name, repeated ones joined with ", ". Read from the raw list:
 * `res.headers` would first build Node's own object (with its per-name rules) only to be copied.
 */
export function answerHeaders(raw: readonly string[]): Record<string, string> {
  // no prototype: a header named `__proto__` or `constructor` is a header like any other
  const headers: Record<string, string> = Object.create(null);
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** A key object per subscription secret: a string key would be converted again for every attempt. */
const signingKeys = new Map<string, KeyObject>();
function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (!key) {
    if (signingKeys.size > 5000) signingKeys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    signingKeys.set(secret, key);
  }
  return key;
}

/** Synchronous HMAC-SHA256: the same hex digest as WebCrypto's, without a thread-pool hop per attempt. */
export const nodeSigner: Signer = (secret, message) =>
  createHmac('sha256', signingKey(secret)).update(message).digest('hex');

export const nodeWebhookPort = (): WebhookPort => ({
  resolveHost: nodeResolver,
  transport: nodeTransport,
  sign: nodeSigner,
});
