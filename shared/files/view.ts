import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { ApiError } from '../http/errors';
import type { FileStorage } from '../storage/port';
import { signedLink } from './links';
import type { AttachmentRow } from './records';

/** An attachment as reads and events carry it: the record without its link (metadata only). */
export const attachmentView = (row: AttachmentRow) => ({
  id: row.id,
  filename: row.filename,
  content_type: row.content_type,
  size: Number(row.size),
  sha256: row.sha256,
  created_at: new Date(row.created_at).toISOString(),
});
export type AttachmentView = ReturnType<typeof attachmentView>;

/** The services' storage, or 503 where none is configured (a Worker without its bucket binding). */
export function filesOf(c: Context<AppEnv>): FileStorage {
  const files = c.get('services').files;
  if (!files) throw new ApiError(503, 'File storage is not configured');
  return files;
}

/** Where links point: PUBLIC_BASE_URL, else the origin this request came to. */
export const linkBase = (c: Context<AppEnv>) =>
  c.get('services').config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin;

/** A fresh signed link to a record's bytes, valid for ATTACHMENT_URL_TTL_S (it needs only the id and tenant). */
export function linkOf(c: Context<AppEnv>, row: { id: string; tenant_id: string }) {
  const { config } = c.get('services');
  return signedLink(filesOf(c).signingKey, linkBase(c), row, config.ATTACHMENT_URL_TTL_S);
}

/** The record with its `download_url` (what an upload and a read answer). */
export const withLink = (row: AttachmentRow, link: { url: string; expiresAt: string }) => ({
  ...attachmentView(row),
  download_url: link.url,
  download_url_expires_at: link.expiresAt,
});

/** The record with a fresh `download_url`. */
export async function attachmentWithLink(c: Context<AppEnv>, row: AttachmentRow) {
  return withLink(row, await linkOf(c, row));
}
