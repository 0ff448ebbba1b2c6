/**
 * Fixed responses (a page, a script, the OpenAPI document) sent compressed and cacheable: a strong
 * ETag from the content's SHA-256, 304 to a matching If-None-Match, and the body in the best
 * encoding the request accepts (br, then gzip). The bytes are compressed once per representation
 * and encoding, not per request.
 *
 * On Node the compression is done here (node:zlib through `process.getBuiltinModule`, so nothing
 * Node-only is bundled into a Worker). On Workers the runtime itself encodes a body whose response
 * names a Content-Encoding (gzip or br), so the bytes go out as they are with that header.
 */

export interface Representation {
  body: Uint8Array;
  /** quoted strong ETag, e.g. `"3f2a…"` */
  etag: string;
  /** hex SHA-256 prefix, for content-addressed URLs (`?v=`) */
  hash: string;
  type: string;
}

type Encoding = 'br' | 'gzip';
interface NodeZlib {
  brotliCompressSync(b: Uint8Array, o?: unknown): Uint8Array;
  gzipSync(b: Uint8Array, o?: unknown): Uint8Array;
  constants: { BROTLI_PARAM_QUALITY: number; BROTLI_PARAM_SIZE_HINT: number };
}

const encoder = new TextEncoder();

export async function representation(content: string | Uint8Array, type: string): Promise<Representation> {
  const body = typeof content === 'string' ? encoder.encode(content) : content;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>));
  const hash = [...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { body, etag: `"${hash}"`, hash, type };
}

function nodeZlib(): NodeZlib | null {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  return typeof getBuiltin === 'function' ? (getBuiltin('zlib') as NodeZlib) : null;
}

/** The encodings of Accept-Encoding with a non-zero q, by name. */
function accepted(header: string | undefined): Set<string> {
  const names = new Set<string>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) names.add(name.trim());
  }
  return names;
}

export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  const names = accepted(acceptEncoding);
  if (names.has('br')) return 'br';
  if (names.has('gzip') || names.has('*')) return 'gzip';
  return null;
}

/** compressed bodies by ETag and encoding; a few documents and files, so it stays small */
const compressed = new Map<string, Uint8Array>();

function compress(rep: Representation, encoding: Encoding, zlib: NodeZlib): Uint8Array {
  const key = `${encoding}:${rep.etag}`;
  let bytes = compressed.get(key);
  if (!bytes) {
    bytes =
      encoding === 'br'
        ? zlib.brotliCompressSync(rep.body, {
            params: {
              // quality 9 of 11: within a few per cent of 11's size at a fraction of its time
              [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: rep.body.length,
            },
          })
        : zlib.gzipSync(rep.body, { level: 9 });
    if (compressed.size > 64) compressed.clear();
    compressed.set(key, bytes);
  }
  return bytes;
}

/** The ETags of If-None-Match (`*` matches any). */
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  !!ifNoneMatch &&
  ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });

/**
 * The response for `rep` to a request with these headers: 304 when If-None-Match holds its ETag,
 * else 200 with the body, compressed when the request accepts it.
 */
export function sendRepresentation(
  request: Request,
  rep: Representation,
  cacheControl: string,
  extra: Record<string, string> = {},
): Response {
  const headers: Record<string, string> = {
    ...extra,
    'Content-Type': rep.type,
    ETag: rep.etag,
    'Cache-Control': cacheControl,
    Vary: 'Accept-Encoding',
  };
  if (matches(request.headers.get('if-none-match') ?? undefined, rep.etag))
    return new Response(null, { status: 304, headers });
  const encoding = chooseEncoding(request.headers.get('accept-encoding') ?? undefined);
  if (!encoding) return new Response(rep.body as Uint8Array<ArrayBuffer>, { status: 200, headers });
  headers['Content-Encoding'] = encoding;
  const zlib = nodeZlib();
  // Workers: the runtime encodes the body as the header says
  const body = zlib ? compress(rep, encoding, zlib) : rep.body;
  return new Response(body as Uint8Array<ArrayBuffer>, { status: 200, headers });
}
