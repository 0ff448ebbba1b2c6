import { hmacSha256Hex, timingSafeEqual } from '../crypto';
import { ApiError } from '../http/errors';

/** The route that serves a signed link (functions/files): open, the signature is the credential. */
export const DOWNLOAD_PATH = '/api/v1/files';

export const LinkDetail = {
  expired: 'Download link expired',
  invalid: 'Download link invalid',
} as const;

const message = (tenantId: string, id: string, expires: number) => `${tenantId}\n${id}\n${expires}`;

/**
 * A download link: `<base>/api/v1/files/<id>?tenant=<tenant>&expires=<unix s>&signature=<hex>`,
 * the signature an HMAC-SHA256 of tenant, id and expiry under the storage's signing key. It needs
 * no credential and is refused 403 after `expires` (docs/files.md).
 */
export async function signedLink(
  key: string,
  base: string,
  record: { id: string; tenant_id: string },
  ttlSeconds: number,
  now = Date.now(),
): Promise<{ url: string; expiresAt: string }> {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const signature = await hmacSha256Hex(key, message(record.tenant_id, record.id, expires));
  const q = new URLSearchParams({ tenant: record.tenant_id, expires: String(expires), signature });
  return {
    url: `${base.replace(/\/+$/, '')}${DOWNLOAD_PATH}/${encodeURIComponent(record.id)}?${q}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** Checks a link's query: 403 when the signature is wrong or the link has expired. */
export async function verifyLink(
  key: string,
  id: string,
  q: { tenant: string; expires: number; signature: string },
  now = Date.now(),
): Promise<void> {
  const expected = await hmacSha256Hex(key, message(q.tenant, id, q.expires));
  if (!timingSafeEqual(expected, q.signature.toLowerCase())) throw new ApiError(403, LinkDetail.invalid);
  if (q.expires * 1000 <= now) throw new ApiError(403, LinkDetail.expired);
}

/** RFC 6266 `attachment` with the name as a quoted ASCII fallback and `filename*` in UTF-8. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
