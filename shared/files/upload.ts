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

/**
 * A form's envelope is not the file: stored as sent, it would keep the boundaries and part headers
 * as the file's bytes (what `curl -F` sends). The body is left unread, so the socket closes after.
 */
const MULTIPART_BODY = {
  loc: ['header', 'content-type'],
  msg: "Send the file's own bytes as the request body under its own Content-Type (curl --data-binary @file), not multipart/form-data",
  type: 'value_error',
};

// the unread rest of a refused body makes the socket unusable: say so (as shared/runtime/body-size.ts)
const tooLarge = (detail: string) => new ApiError(413, detail, { Connection: 'close' });

/** What an upload may still take once its checks have answered, and the refusal past it. */
export interface UploadLimit {
  limit: number;
  overLimit: () => ApiError;
}

/**
 * Streams `req`'s body into storage under `key`: counted (over `limit`: the refusal `overLimit`
 * makes) and hashed chunk by chunk, never held whole. `admission`, when given, is the upload's
 * checks, running while the first bytes stream: their refusal (the owner unknown, the plan's cap)
 * cancels the write and wins over any later failure of the body, as if they had answered before it
 * was read; their answer narrows the limit. All or nothing: on any failure, a refusal, the cap, the
 * sender gone, storage refusing, the key is deleted before the error is thrown (400 for a body that
 * ended early). Returns the size and the lower-case hex sha256.
 */
export async function streamIntoStorage(
  files: FileStorage,
  key: string,
  req: Request,
  options: {
    stated: number | null;
    limit: number;
    overLimit: () => ApiError;
    admission?: Promise<UploadLimit>;
    contentType: string;
  },
): Promise<{ size: number; sha256: string }> {
  const hasher = files.sha256();
  let { limit, overLimit } = options;
  let size = 0;
  // the checks' refusal (or failure), and the body's own: the first is thrown before the second
  let checked: { error: unknown } | null = null;
  let refusal: ApiError | null = null;
  let broken = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const reader = (req.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() })).getReader();
  // errors the stream storage reads (a put under way then fails and keeps nothing) and stops reading
  // the sender; once the stream has closed, erroring it does nothing and the caller deletes the key
  const stop = (err: unknown) => {
    controller?.error(err);
    reader.cancel().catch(() => {});
  };
  // pulled by storage, one chunk at a time: a slow bucket slows the sender instead of filling memory
  const counted = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      async pull(c) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (err) {
          broken = true;
          c.error(err);
          return;
        }
        // refused while the read was pending: the stream is errored already
        if (checked || refusal) return;
        if (read.done) return c.close();
        size += read.value.byteLength;
        if (size > limit) {
          refusal = overLimit();
          stop(refusal);
          return;
        }
        // handed on first: the hasher reads the chunk while storage writes it (the Node hasher runs
        // once the write is under way, the Workers one copies it now), and the next chunk is read
        // only once it is hashed
        c.enqueue(read.value);
        try {
          const hashed = hasher.update(read.value);
          if (hashed) await hashed;
        } catch (err) {
          stop(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const admitted = options.admission?.then(
    (answer) => {
      ({ limit, overLimit } = answer);
      // past the narrower limit already: its refusal replaces the wider one's (the plan's cap names itself)
      if (size > limit) {
        refusal = overLimit();
        stop(refusal);
      }
    },
    (error: unknown) => {
      checked = { error };
      stop(error);
    },
  );
  const incomplete = () => new ApiError(400, Detail.bodyIncomplete, { Connection: 'close' });
  const failed = async (err: unknown): Promise<never> => {
    await files.objects.delete(key).catch(() => {});
    if (checked) throw checked.error;
    if (refusal) throw refusal;
    // the body broke off: nothing was kept
    if (broken) throw incomplete();
    throw err;
  };
  try {
    await files.objects.put(key, counted, { size: options.stated, contentType: options.contentType });
  } catch (err) {
    await admitted;
    return failed(err);
  }
  // a body shorter than the checks' statement was stored before they answered: their refusal still takes it back
  await admitted;
  if (checked || refusal) return failed(null);
  if (options.stated !== null && size !== options.stated) return failed(incomplete());
  return { size, sha256: await hasher.digest() };
}

/**
 * Receives one file for `owner` (a ticket, a conversation, a call's recording) from the raw body:
 * the owner checked in the tenant (404) and the per-plan cap while the bytes start streaming into
 * storage (a refusal takes back what was stored), a zero-byte body refused, then the record written.
 * A record that cannot be written takes its bytes with it.
 */
export async function receiveFile(
  c: Context<AppEnv>,
  owner: { type: OwnerType; id: string; noun: string },
  filename: string,
  /** the caller's tenant (an internal upload names it through its call) */
  tenantId = tenantOf(c),
  contentType = mediaTypeOf(c.req.header('content-type')),
  /** the record's id (the upload's answer signs its link while the file is received) */
  id = newId('attachment'),
): Promise<AttachmentRow> {
  if (contentType === 'multipart/form-data')
    throw new ApiError(422, [MULTIPART_BODY], { Connection: 'close' });
  const files = filesOf(c);
  const { db, config } = c.get('services');
  // the checks' statement runs while the first bytes stream into storage (on Postgres a round trip,
  // on PGlite WebAssembly on this thread while the file system writes on its own): their refusal
  // cancels the write and takes back what it stored, so the bucket is left as if nothing was read
  const checks = uploadChecks(db, tenantId, owner.type, owner.id);
  const length = c.req.header('content-length');
  const declared = length === undefined || c.req.header('transfer-encoding') ? null : Number(length);
  const stated = declared !== null && Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
  if (stated === 0 || !c.req.raw.body) {
    if (!(await checks).ownerExists) throw notFound(owner.noun);
    throw validationError([EMPTY_FILE]);
  }
  const tooLargeBody = () => tooLarge(Detail.bodyTooLarge);
  const admission = checks.then(({ ownerExists, plan, used }): UploadLimit => {
    if (!ownerExists) throw notFound(owner.noun);
    const cap = STORAGE_CAP_BYTES[plan] ?? STORAGE_CAP_BYTES.free;
    const capRefusal = () => tooLarge(storageCapDetail(plan, cap));
    if (used + (stated ?? 1) > cap) throw capRefusal();
    const room = cap - used;
    return {
      limit: Math.min(config.ATTACHMENT_MAX_BYTES, room),
      overLimit: room < config.ATTACHMENT_MAX_BYTES ? capRefusal : tooLargeBody,
    };
  });
  const key = `${tenantId}/${id}`;
  // until the checks answer, the most any upload may be (the gate refused a larger stated length)
  const { size, sha256 } = await streamIntoStorage(files, key, c.req.raw, {
    stated,
    limit: config.ATTACHMENT_MAX_BYTES,
    overLimit: tooLargeBody,
    admission,
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
