import type { TenantPlan } from '../db/schema';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/**
 * The bytes a tenant may keep in files (attachments and recordings together), per plan
 * (docs/files.md). An upload that would pass the cap is refused 413 and leaves nothing stored.
 */
export const STORAGE_CAP_BYTES: Record<TenantPlan, number> = {
  free: 100 * MiB,
  starter: 5 * GiB,
  pro: 50 * GiB,
  enterprise: 500 * GiB,
};

/** "100 MiB", "5 GiB": the cap as the 413's detail names it. */
export const formatBytes = (bytes: number): string =>
  bytes >= GiB && bytes % GiB === 0 ? `${bytes / GiB} GiB` : `${Math.round(bytes / MiB)} MiB`;

export const storageCapDetail = (plan: TenantPlan, cap: number) =>
  `Storage limit reached: the ${plan} plan keeps at most ${formatBytes(cap)} of files`;

/**
 * Types a browser would render or run if it opened the file itself (HTML, SVG, XML, JavaScript and
 * their kin): served as `application/octet-stream`, so a stored file never runs script on our origin.
 */
const RENDERED =
  /^(?:text\/(?:html|xml|javascript|ecmascript|xsl|css|vtt)|application\/(?:xhtml\+xml|xml|javascript|ecmascript|x-javascript|xslt\+xml|rss\+xml|atom\+xml|mathml\+xml|wasm|pdf-x)|image\/svg\+xml|[a-z]+\/[a-z0-9.+-]*\+xml|multipart\/x-mixed-replace)$/;

/** The Content-Type a download is served with: the stored one, unless a browser would render it. */
export const servedTypeOf = (stored: string): string =>
  RENDERED.test(stored.toLowerCase()) ? 'application/octet-stream' : stored;

/** The media type of an upload's Content-Type (lower-cased, no parameters); octet-stream when absent or malformed. */
export function mediaTypeOf(header: string | undefined): string {
  const type = header?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(type)
    ? type
    : 'application/octet-stream';
}
