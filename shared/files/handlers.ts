import type { Context } from 'hono';
import { tenantOf } from '../auth/credential';
import type { AppEnv } from '../context/app-env';
import { byteRangeOf } from '../http/byte-range';
import { ApiError, Detail, notFound } from '../http/errors';
import { newId } from '../ids';
import { servedTypeOf } from './limits';
import { contentDisposition, verifyLink } from './links';
import { deleteAttachment, findAttachment, listAttachments, type OwnerType, ownerExists } from './records';
import { receiveFile } from './upload';
import { attachmentWithLink, filesOf, linkOf, withLink } from './view';

// the handlers below read what their route's validators checked (shared/http/route.ts); typed
// loosely so one handler serves the ticket's and the conversation's declarations alike
// biome-ignore lint/suspicious/noExplicitAny: the input types of two declarations that differ by name only
type AnyContext = Context<AppEnv, any, any>;

export interface Owner {
  type: OwnerType;
  /** the path parameter naming it (`ticket_id`, `id`) */
  param: string;
  /** the 404's subject (`Ticket`, `Conversation`) */
  noun: string;
}

const ownerOf = (c: AnyContext, o: Owner) => ({
  type: o.type,
  id: c.req.param(o.param) as string,
  noun: o.noun,
});

/** POST …/attachments?filename=: 201 with the record and a signed link. */
export const uploadHandler = (o: Owner) => async (c: AnyContext) => {
  const { filename } = c.req.valid('query') as { filename: string };
  const id = newId('attachment');
  // the answer's link is signed while the bytes stream and the record is written: Web Crypto's HMAC
  // is a trip to another thread, which the answer would otherwise wait for after the insert
  const link = linkOf(c, { id, tenant_id: tenantOf(c) });
  // (a refused upload never reads it)
  link.catch(() => {});
  const row = await receiveFile(c, ownerOf(c, o), filename, undefined, undefined, id);
  return c.json(withLink(row, await link), 201);
};

/** GET …/attachments: every file of the owner, oldest first, each with a fresh link. */
export const listHandler = (o: Owner) => async (c: AnyContext) => {
  const { db } = c.get('services');
  const tenantId = tenantOf(c);
  const owner = ownerOf(c, o);
  if (!(await ownerExists(db, tenantId, o.type, owner.id))) throw notFound(o.noun);
  const rows = await listAttachments(db, tenantId, o.type, owner.id);
  return c.json({ attachments: await Promise.all(rows.map((r) => attachmentWithLink(c, r))) });
};

async function ownedAttachment(c: AnyContext, o: Owner) {
  const owner = ownerOf(c, o);
  const row = await findAttachment(
    c.get('services').db,
    tenantOf(c),
    owner,
    c.req.param('attachment_id') as string,
  );
  if (!row) throw notFound('Attachment');
  return row;
}

export const getHandler = (o: Owner) => async (c: AnyContext) =>
  c.json(await attachmentWithLink(c, await ownedAttachment(c, o)));

/** DELETE: the record first (no link resolves after), then the bytes. */
export const deleteHandler = (o: Owner) => async (c: AnyContext) => {
  const row = await ownedAttachment(c, o);
  const files = filesOf(c);
  await deleteAttachment(c.get('services').db, row.tenant_id, row.id);
  await files.objects.delete(row.storage_key);
  return c.body(null, 204);
};

/**
 * GET /api/v1/files/{file_id}?tenant&expires&signature: the signed link (no credential). Serves
 * exactly the stored bytes (or the one byte range a Range header asks), streamed, as an
 * attachment, nosniff, and as octet-stream for any type a browser would render, so a stored file
 * can never run script on this origin.
 */
export async function downloadHandler(c: AnyContext) {
  const { file_id } = c.req.valid('param') as { file_id: string };
  const q = c.req.valid('query') as { tenant: string; expires: number; signature: string };
  const files = filesOf(c);
  await verifyLink(files.signingKey, file_id, q);
  const row = await findAttachment(c.get('services').db, q.tenant, null, file_id);
  if (!row) throw notFound('File');
  // the bytes' sha256 is their strong validator: a resumed download's If-Range names it
  const etag = `"${row.sha256}"`;
  const size = Number(row.size); // a bigint column: a string on some drivers
  const ifRange = c.req.header('if-range');
  const range = ifRange === undefined || ifRange === etag ? byteRangeOf(c.req.header('range'), size) : null;
  if (range === 'unsatisfiable')
    throw new ApiError(416, Detail.rangeNotSatisfiable(size), { 'Content-Range': `bytes */${size}` });
  const object = await files.objects.get(row.storage_key, range ?? undefined);
  if (!object) throw notFound('File');
  return new Response(object.body, {
    status: range ? 206 : 200,
    headers: {
      ...(range
        ? { 'Content-Range': `bytes ${range.offset}-${range.offset + range.length - 1}/${size}` }
        : {}),
      'Accept-Ranges': 'bytes',
      ETag: etag,
      'Content-Type': servedTypeOf(row.content_type),
      'Content-Length': String(object.size),
      'Content-Disposition': contentDisposition(row.filename),
      'X-Content-Type-Options': 'nosniff',
      // opened directly, it is still a document of this origin: give it no powers at all
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-store',
      'Referrer-Policy': 'no-referrer',
    },
  });
}
