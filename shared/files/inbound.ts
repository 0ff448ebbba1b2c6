import * as z from 'zod';
import type { Db, Executor } from '../db/schema';
import type { AppConfig } from '../env';
import { ApiError, validationError } from '../http/errors';
import { newId } from '../ids';
import type { FileStorage } from '../storage/port';
import { mediaTypeOf, STORAGE_CAP_BYTES, storageCapDetail } from './limits';
import { type AttachmentRow, insertAttachment, storageUse } from './records';
import { Filename } from './schemas';
import { EMPTY_FILE } from './upload';
import { attachmentView } from './view';

/**
 * Files that arrive inside an inbound channel message (an email's attachments, a WhatsApp
 * document): base64 in the JSON, since the channel hands them over with the message and there is
 * nothing to upload beforehand (docs/files.md, "Files in inbound messages").
 */
export const InboundFile = z.strictObject({
  filename: Filename,
  content_type: z.string().max(255).optional(),
  /** standard base64 (RFC 4648 §4, padded, no line breaks) */
  content_base64: z
    .string()
    .regex(
      /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
      'must be standard base64 (padded, no line breaks)',
    ),
});
export type InboundFile = z.infer<typeof InboundFile>;

/** At most this many files in one inbound message. */
export const INBOUND_FILES_MAX = 10;
export const InboundFiles = z.array(InboundFile).max(INBOUND_FILES_MAX).optional();

/** A file already in storage, waiting for its message's transaction to write its record. */
export interface StagedFile {
  id: string;
  key: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** Bytes a base64 text decodes to, without decoding it (the regex above has checked its form). */
export const decodedLength = (b64: string) =>
  (b64.length / 4) * 3 - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

function decodeBase64(b64: string): Uint8Array {
  const text = atob(b64);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

const loc = (i: number) => ['body', 'attachments', i, 'content_base64'];

/**
 * Checks every file before any is stored: none empty (422 at its field), none over
 * ATTACHMENT_MAX_BYTES (413), all of them together within the tenant's plan (413 naming the cap).
 */
async function admitFiles(
  db: Db,
  config: Pick<AppConfig, 'ATTACHMENT_MAX_BYTES'>,
  tenantId: string,
  list: readonly InboundFile[],
) {
  const sizes = list.map((f) => decodedLength(f.content_base64));
  const empty = sizes.flatMap((s, i) => (s === 0 ? [{ ...EMPTY_FILE, loc: loc(i) }] : []));
  if (empty.length > 0) throw validationError(empty);
  const over = sizes.findIndex((s) => s > config.ATTACHMENT_MAX_BYTES);
  if (over >= 0)
    throw new ApiError(
      413,
      `File attachments[${over}] is larger than the server accepts (ATTACHMENT_MAX_BYTES, ${config.ATTACHMENT_MAX_BYTES} bytes)`,
    );
  const { plan, used } = await storageUse(db, tenantId);
  const cap = STORAGE_CAP_BYTES[plan] ?? STORAGE_CAP_BYTES.free;
  if (used + sizes.reduce((a, b) => a + b, 0) > cap) throw new ApiError(413, storageCapDetail(plan, cap));
}

/**
 * Stores an inbound message's files before its transaction (storage is no place to hold a
 * database transaction open in): each checked first, then decoded and written under
 * `<tenant>/<attachment id>` with its sha256. All or nothing: when one put fails, the ones
 * already written are deleted. The caller writes the records in the message's transaction
 * (`recordInboundFiles`) and calls `discard` if that transaction fails, so a refused message
 * leaves no bytes.
 */
export async function stageInboundFiles(
  files: FileStorage | undefined,
  db: Db,
  config: Pick<AppConfig, 'ATTACHMENT_MAX_BYTES'>,
  tenantId: string,
  list: readonly InboundFile[] | undefined,
): Promise<{ staged: StagedFile[]; discard: () => Promise<void> }> {
  const staged: StagedFile[] = [];
  const discard = async () => {
    if (!files) return;
    await Promise.all(staged.map((f) => files.objects.delete(f.key).catch(() => {})));
  };
  if (!list || list.length === 0) return { staged, discard };
  if (!files) throw new ApiError(503, 'File storage is not configured');
  await admitFiles(db, config, tenantId, list);
  try {
    for (const file of list) {
      const bytes = decodeBase64(file.content_base64);
      const hasher = files.sha256();
      await hasher.update(bytes);
      const id = newId('attachment');
      const entry: StagedFile = {
        id,
        key: `${tenantId}/${id}`,
        filename: file.filename,
        content_type: mediaTypeOf(file.content_type),
        size: bytes.byteLength,
        sha256: '',
      };
      // listed before the put: a put that fails midway is deleted with the rest
      staged.push(entry);
      entry.sha256 = await hasher.digest();
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes);
          c.close();
        },
      });
      await files.objects.put(entry.key, body, { size: entry.size, contentType: entry.content_type });
    }
  } catch (err) {
    await discard();
    throw err;
  }
  return { staged, discard };
}

/** The records of staged files, sent with `messageId`, inside the message's transaction. */
export async function recordInboundFiles(
  trx: Executor,
  tenantId: string,
  conversationId: string,
  messageId: string,
  staged: readonly StagedFile[],
) {
  const rows: AttachmentRow[] = [];
  for (const f of staged) {
    const row = await insertAttachment(trx, {
      id: f.id,
      tenant_id: tenantId,
      owner_type: 'conversation',
      owner_id: conversationId,
      filename: f.filename,
      content_type: f.content_type,
      size: f.size,
      sha256: f.sha256,
      storage_key: f.key,
      attached_to: messageId,
      // the contact sent it, through the channel: no user uploaded it
      created_by: null,
    });
    rows.push(row);
  }
  return rows.map(attachmentView);
}
