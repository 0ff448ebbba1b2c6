import { AwsClient } from 'aws4fetch';
import { chunksOf, type ObjectStorage } from './port';

/** how long a broken-off PUT is given to be finished with on the server before it is deleted */
const BROKEN_PUT_SETTLE_MS = 1_000;

export interface S3Settings {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

const encodeKey = (key: string) => key.split('/').map(encodeURIComponent).join('/');
const XML_KEY = /<Key>([^<]*)<\/Key>/g;
const unescapeXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/**
 * Any S3-compatible bucket (AWS, R2's S3 API, MinIO, …), path-style, signed with aws4fetch (SigV4 in
 * a few KB on fetch, where the AWS SDK would add megabytes). A put of a stated size streams the
 * body with `UNSIGNED-PAYLOAD` (its sha256 is ours, computed on the way); a single PUT is atomic on
 * S3, so a body that errors midway stores nothing. A body of unstated size (chunked) is gathered
 * first (S3 takes no chunked PUT without a length): it is bounded by ATTACHMENT_MAX_BYTES.
 */
export function s3Storage(settings: S3Settings, fetcher: typeof fetch = fetch): ObjectStorage {
  const aws = new AwsClient({
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    service: 's3',
    region: settings.region,
  });
  const base = `${settings.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(settings.bucket)}`;
  const urlOf = (key: string) => `${base}/${encodeKey(key)}`;
  const send = async (url: string, init: RequestInit & { duplex?: 'half' }) =>
    fetcher(await aws.sign(url, init));
  const failed = async (what: string, res: Response) => {
    const text = await res.text().catch(() => '');
    return new Error(`S3 ${what} failed: ${res.status} ${text.slice(0, 200)}`);
  };
  return {
    kind: 's3',
    async put(key, body, { size, contentType }) {
      let payload: BodyInit;
      const headers: Record<string, string> = { 'content-type': contentType };
      if (size === null) {
        const parts: Uint8Array[] = [];
        for await (const chunk of chunksOf(body)) parts.push(chunk);
        payload = new Blob(parts as BlobPart[]);
      } else {
        payload = body;
        headers['content-length'] = String(size);
      }
      const res = await send(urlOf(key), { method: 'PUT', headers, body: payload, duplex: 'half' }).catch(
        async (err: unknown) => {
          // the body broke off: a lax server may still store what arrived once it sees the socket
          // close, after a delete sent at once; the caller's delete waits until it has
          await new Promise((resolve) => setTimeout(resolve, BROKEN_PUT_SETTLE_MS));
          throw err;
        },
      );
      if (!res.ok) throw await failed('PUT', res);
      await res.body?.cancel();
    },
    async get(key, range) {
      const headers: Record<string, string> = range
        ? { range: `bytes=${range.offset}-${range.offset + range.length - 1}` }
        : {};
      const res = await send(urlOf(key), { method: 'GET', headers });
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      // a bucket that ignored the range (200) would hand back the whole object as the part
      if (!res.ok || !res.body || (range && res.status !== 206)) throw await failed('GET', res);
      return { body: res.body, size: Number(res.headers.get('content-length') ?? 0) };
    },
    async delete(key) {
      const res = await send(urlOf(key), { method: 'DELETE' });
      if (!res.ok && res.status !== 404) throw await failed('DELETE', res);
      await res.body?.cancel();
    },
    async list(prefix) {
      const keys: string[] = [];
      let token: string | null = null;
      do {
        const q = new URLSearchParams({ 'list-type': '2', prefix });
        if (token) q.set('continuation-token', token);
        const res = await send(`${base}?${q}`, { method: 'GET' });
        if (!res.ok) throw await failed('LIST', res);
        const xml = await res.text();
        for (const m of xml.matchAll(XML_KEY)) keys.push(unescapeXml(m[1]!));
        token = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1] ?? null;
      } while (token);
      return keys.sort();
    },
  };
}
