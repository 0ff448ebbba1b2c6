// `npm run webhooks:listen`: a local HTTPS webhook receiver, like `stripe listen`. It keeps a
// self-signed certificate in .data-webhooks/ (PGlite owns .data/ itself), prints the one `npm start`
// line that lets the server deliver to it, subscribes through the API when given a credential
// (and unsubscribes on Ctrl-C), and prints one line per delivery with its signature verdict.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import selfsigned from 'selfsigned';
import { createSupportClient, SupportApiError, verifyWebhookSignature } from '../clients/typescript/index';

const USAGE = `Usage: npm run webhooks:listen -- [options]
  --init              create the certificate, print the server's start line, and exit
  --token <jwt>       a dashboard session (tenant_admin): subscribe through the API
  --key <api key>     or an API key with webhooks:write (and webhooks:delete to unsubscribe on exit)
  --secret <whsec_…>  verify against an existing subscription's secret instead of subscribing
  --events <list>     comma list of events to subscribe to (default *)
  --api <url>         the API (default http://127.0.0.1:8787)
  --port <n>          this receiver's port (default 8788)
  --dir <path>        where the certificate lives (default .data-webhooks)
  --keep              keep the subscription when this command stops`;

const { values: args } = parseArgs({
  options: {
    init: { type: 'boolean', default: false },
    token: { type: 'string' },
    key: { type: 'string' },
    secret: { type: 'string' },
    events: { type: 'string', default: '*' },
    api: { type: 'string', default: 'http://127.0.0.1:8787' },
    port: { type: 'string', default: '8788' },
    dir: { type: 'string', default: '.data-webhooks' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}

/** The host the server must be allowed to reach; the certificate names it (and 127.0.0.1, ::1). */
const HOST = 'localhost';
const PATH = '/webhooks';
const port = Number(args.port);
/** where deliveries go: the port the OS gave replaces a requested 0 once listening */
let url = `https://${HOST}:${port}${PATH}`;

/** A self-signed CA certificate for localhost, made once and reused (the server trusts it from its start). */
async function certificate(
  dir: string,
): Promise<{ cert: string; key: string; certPath: string; created: boolean }> {
  const certPath = join(dir, 'localhost.crt');
  const keyPath = join(dir, 'localhost.key');
  const created = !existsSync(certPath) || !existsSync(keyPath);
  if (created) {
    const now = new Date();
    const generated = await selfsigned.generate([{ name: 'commonName', value: HOST }], {
      keySize: 2048,
      algorithm: 'sha256',
      notBeforeDate: now,
      notAfterDate: new Date(now.getTime() + 10 * 365 * 86_400_000),
      extensions: [
        // CA:TRUE so NODE_EXTRA_CA_CERTS can name this very certificate as a trusted root
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: HOST },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    mkdirSync(dir, { recursive: true });
    writeFileSync(certPath, generated.cert);
    writeFileSync(keyPath, generated.private, { mode: 0o600 });
  }
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath, created };
}

const tls = await certificate(resolve(args.dir));
// relative to the repository when inside it (what README shows), else absolute
const fromCwd = relative(process.cwd(), tls.certPath);
const certShown = fromCwd.startsWith('..') ? tls.certPath : fromCwd;
const startLine = `WEBHOOK_SSRF_ALLOW=${HOST} NODE_EXTRA_CA_CERTS=${certShown} npm start`;
// the start line matters once, when the certificate is new (the server must be restarted to trust
// it); on later runs one line is enough, and --init prints the whole again
function announceCertificate() {
  if (args.init || tls.created)
    console.log(`Certificate: ${certShown}
Start the server so that it may deliver to ${url} (a private address) and trusts this certificate:
  ${startLine}`);
  else console.log(`Certificate: ${certShown} (--init prints the server's start line again)`);
}
if (args.init) {
  announceCertificate();
  process.exit(0);
}

const credential = args.token ? { sessionToken: args.token } : args.key ? { apiKey: args.key } : null;
const api = credential ? createSupportClient({ baseUrl: args.api, ...credential }) : null;
let secret = args.secret;
let subscriptionId: string | undefined;

/** Subscribes through the API when given a credential (once listening: the URL names the bound port). */
async function subscribe() {
  if (api && !secret) {
    const events = args.events.split(',').map((e) => e.trim());
    try {
      const { data } = await api.POST('/api/v1/webhooks', { body: { url, events } });
      subscriptionId = data?.id;
      secret = data?.secret;
      console.log(`Subscribed ${subscriptionId} to ${events.join(', ')} at ${url}${args.keep ? '' : ' (removed when you stop this command)'}
Secret: ${secret}`);
    } catch (error) {
      // "fetch failed" says nothing: the code (ECONNREFUSED…) is further down the causes (the
      // client's SupportNetworkError holds fetch's TypeError, which holds the socket's error)
      const reason = systemCodeOf(error) ?? (error as Error).message;
      console.error(
        error instanceof SupportApiError
          ? `Could not subscribe: ${error.status} ${JSON.stringify(error.detail)}\nIs the server at ${args.api} the one started with: ${startLine}`
          : `Could not reach ${args.api} (${reason}): is the server running there?
  Start it in another terminal: ${startLine}
  If it listens on another port, point this command at it: --api http://127.0.0.1:<PORT>`,
      );
      process.exit(1);
    }
  } else if (!secret) {
    console.log('No --token, --key or --secret: deliveries are shown, their signatures cannot be checked.');
  }
}

/** How many times each delivery id reached this listener (retries reuse the id). */
const attempts = new Map<string, number>();

const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks);
    const header = (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value[0] : value;
    };
    const deliveryId = header('X-Webhook-Delivery-Id') ?? '(no delivery id)';
    const attempt = (attempts.get(deliveryId) ?? 0) + 1;
    attempts.set(deliveryId, attempt);
    const verified = secret
      ? await verifyWebhookSignature({
          payload: new Uint8Array(raw),
          headers: req.headers,
          secret,
          toleranceSeconds: 300,
        })
      : undefined;
    // a bad signature is refused as a real receiver should; unknown (no secret) is accepted
    const status = verified === false ? 401 : 200;
    const verdict =
      verified === undefined
        ? 'signature not checked'
        : verified
          ? 'signature verified'
          : 'signature INVALID';
    console.log(
      [
        new Date().toISOString(),
        header('X-Webhook-Event') ?? '(no event)',
        `delivery ${deliveryId}`,
        `attempt ${attempt}`,
        verdict,
        `-> ${status}`,
      ].join('  '),
    );
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(verified === false ? 'bad signature' : 'ok');
  });
});

/**
 * Why a client's TLS handshake failed, in words, by OpenSSL's (or the socket's) code; any other
 * code prints Node's message. The common ones: plain HTTP to this port; a client that does not
 * trust the certificate (a server started without NODE_EXTRA_CA_CERTS), which either sends an alert
 * or, as Node's fetch does, just closes the connection mid-handshake; a protocol this listener does
 * not speak.
 */
const untrusted = `start the server with NODE_EXTRA_CA_CERTS=${certShown}`;
const TLS_FAILURES: Record<string, string> = {
  ERR_SSL_HTTP_REQUEST: 'plain HTTP sent to this HTTPS port (the URL must start with https://)',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: `the client does not trust this certificate (${untrusted})`,
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: `the client refused this certificate (${untrusted})`,
  ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN: `the client refused this certificate (${untrusted})`,
  ECONNRESET: `the client closed the connection during the handshake (a client that does not trust this certificate does so: ${untrusted})`,
  ERR_SSL_WRONG_VERSION_NUMBER: 'not a TLS handshake, or a TLS version this listener does not speak',
  ERR_SSL_UNSUPPORTED_PROTOCOL: 'a TLS version this listener does not speak',
  ERR_SSL_NO_SHARED_CIPHER: 'no cipher in common with the client',
};

// Each client's address as it connected: once a handshake has failed, its TLS socket may be closed
// and no longer know it. Keyed by the TCP socket, which Node keeps as the TLS socket's `_parent`.
const clientAddress = new WeakMap<object, string>();
server.on('connection', (socket: Socket) =>
  clientAddress.set(socket, `${socket.remoteAddress}:${socket.remotePort}`),
);
// without this, a client whose handshake fails gets nothing and this listener prints nothing
server.on('tlsClientError', (error: NodeJS.ErrnoException, socket) => {
  const from =
    clientAddress.get((socket as unknown as { _parent?: object })._parent ?? socket) ??
    (socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : '(address unknown)');
  const reason = (error.code && TLS_FAILURES[error.code]) ?? error.message;
  console.log(
    `${new Date().toISOString()}  TLS handshake from ${from} failed: ${reason}${error.code ? ` (${error.code})` : ''}`,
  );
});

server.listen(port, '127.0.0.1', async () => {
  // the port the OS gave, when --port 0 asked for any: the subscription must name that one
  url = `https://${HOST}:${(server.address() as AddressInfo).port}${PATH}`;
  announceCertificate();
  await subscribe();
  console.log(`Listening on ${url} (Ctrl-C to stop)`);
});
server.on('error', (error) => {
  console.error(`Cannot listen on port ${port}: ${error.message} (choose another with --port)`);
  process.exit(1);
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  if (api && subscriptionId && !args.keep) {
    try {
      await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: subscriptionId } } });
      console.log(`Removed subscription ${subscriptionId}`);
    } catch (error) {
      console.error(`Could not remove subscription ${subscriptionId}: ${(error as Error).message}`);
    }
  }
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

/** The first system error code (ECONNREFUSED, ENOTFOUND…) along an error's causes. */
function systemCodeOf(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (typeof e.code === 'string') return e.code;
  return undefined;
}
