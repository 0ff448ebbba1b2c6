import type { Context } from 'hono';
import { actorOf, tenantOf } from '../auth/credential';
import type { AppEnv } from '../context/app-env';
import { ApiError, Detail, notFound, validationError } from '../http/errors';
import { newId } from '../ids';
import type { FileStorage } from '../storage/port';
import { mediaTypeOf, STORAGE_CAP_BYTES, storageCapDetail } from './limits';
import { type AttachmentRow, insertAttachment, type OwnerType, uploadChecks } from './records';
import { filesOf } from './view';

export const EMPTY_FILE = { loc: ['body'], msg: 'The file is empty (zero bytes)', type: 'value_error' };

// the unread rest of a refused body makes the socket unusable: say so (as shared/runtime/body-size.ts)
const tooLarge = (detail: string) => new ApiError(413, detail, { Connection: 'close' });

/**
 * Streams `req`'s body into storage under `key`: counted (over `limit`: the refusal `overLimit`
 * makes) and hashed chunk by chunk, never held whole. All or nothing: on any failure, the cap, the
 * sender gone, storage refusing, the key is deleted and the error thrown (400 for a body that ended
 * early). Returns the size and the lower-case hex sha256.
 */
export async function streamIntoStorage(
  files: FileStorage,
  key: string,
  req: Request,
  options: { stated: number | null; limit: number; overLimit: () => ApiError; contentType: string },
): Promise<{ size: number; sha256: string }> {
  const hasher = files.sha256();
  let size = 0;
  let refusal: ApiError | null = null;
  let broken = false;
  const reader = (req.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() })).getReader();
  // pulled by storage, one chunk at a time: a slow bucket slows the sender instead of filling memory
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (err) {
          broken = true;
          controller.error(err);
          return;
        }
        if (read.done) return controller.close();
        size += read.value.byteLength;
        if (size > options.limit) {
          refusal = options.overLimit();
          controller.error(refusal);
          reader.cancel().catch(() => {});
          return;
        }
        try {
          const hashed = hasher.update(read.value);
          if (hashed) await hashed;
        } catch (err) {
          controller.error(err);
          reader.cancel().catch(() => {});
          return;
        }
        controller.enqueue(read.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const incomplete = () => new ApiError(400, Detail.bodyIncomplete, { Connection: 'close' });
  try {
    await files.objects.put(key, counted, { size: options.stated, contentType: options.contentType });
  } catch (err) {
    await files.objects.delete(key).catch(() => {});
    if (refusal) throw refusal;
    // the body broke off: nothing was kept
    if (broken) throw incomplete();
    throw err;
  }
  if (options.stated !== null && size !== options.stated) {
    await files.objects.delete(key).catch(() => {});
    throw incomplete();
  }
  return { size, sha256: await hasher.digest() };
}

/**
 * Receives one file for `owner` (a ticket, a conversation, a call's recording) from the raw body:
 * the owner checked in the tenant (404), the zero-byte body and the per-plan cap refused before
 * anything is stored, the bytes streamed into storage, then the record written. A record that
 * cannot be written takes its bytes with it.
 */
export async function receiveFile(
  c: Context<AppEnv>,
  owner: { type: OwnerType; id: string; noun: string },
  filename: string,
  /** the caller's tenant (an internal upload names it through its call) */
  tenantId = tenantOf(c),
  contentType = mediaTypeOf(c.req.header('content-type')),
): Promise<AttachmentRow> {
  const files = filesOf(c);
  const { db, config } = c.get('services');
  const { ownerExists, plan, used } = await uploadChecks(db, tenantId, owner.type, owner.id);
  if (!ownerExists) throw notFound(owner.noun);
  const length = c.req.header('content-length');
  const declared = length === undefined || c.req.header('transfer-encoding') ? null : Number(length);
  const stated = declared !== null && Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
  if (stated === 0 || !c.req.raw.body) throw validationError([EMPTY_FILE]);
  const cap = STORAGE_CAP_BYTES[plan] ?? STORAGE_CAP_BYTES.free;
  const capRefusal = () => tooLarge(storageCapDetail(plan, cap));
  if (used + (stated ?? 1) > cap) throw capRefusal();
  const room = cap - used;
  const limit = Math.min(config.ATTACHMENT_MAX_BYTES, room);
  const id = newId('attachment');
  const key = `${tenantId}/${id}`;
  const { size, sha256 } = await streamIntoStorage(files, key, c.req.raw, {
    stated,
    limit,
    overLimit: () => (room < config.ATTACHMENT_MAX_BYTES ? capRefusal() : tooLarge(Detail.bodyTooLarge)),
    contentType,
  });
  const forget = () => files.objects.delete(key).catch(() => {});
  if (size === 0) {
    await forget();
    throw validationError([EMPTY_FILE]);
  }
  try {
    return await insertAttachment(db, {
      id,
      tenant_id: tenantId,
      owner_type: owner.type,
      owner_id: owner.id,
      filename,
      content_type: contentType,
      size,
      sha256,
      storage_key: key,
      created_by: actorOf(c),
    });
  } catch (err) {
    await forget();
    throw err;
  }
}
