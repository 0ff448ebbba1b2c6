import type { Context } from 'hono';
import type { AppEnv } from '../context/app-env';
import { validationError } from '../http/errors';
import { mediaTypeOf } from './limits';
import { deleteAttachment, listAttachments } from './records';
import { receiveFile } from './upload';
import { attachmentWithLink, filesOf, linkOf } from './view';

export const RECORDING_NOT_FOUND = 'Recording not found';

const AUDIO_EXT: Record<string, string> = {
  wav: 'wav',
  'x-wav': 'wav',
  mpeg: 'mp3',
  mp3: 'mp3',
  ogg: 'ogg',
  webm: 'webm',
  mp4: 'm4a',
  aac: 'aac',
  flac: 'flac',
};

/**
 * Stores a call's recording from the raw `audio/*` body (the internal token's upload), replacing
 * the one before it (its record and bytes go once the new one is stored). The call's
 * `recording_url`, the storage path the voice agent reported, is left as it is.
 */
export async function storeRecording(c: Context<AppEnv>, call: { id: string; tenant_id: string }) {
  const type = mediaTypeOf(c.req.header('content-type'));
  if (!type.startsWith('audio/'))
    throw validationError([
      { loc: ['header', 'content-type'], msg: 'A recording must be sent as audio/*', type: 'value_error' },
    ]);
  const { db } = c.get('services');
  const before = await listAttachments(db, call.tenant_id, 'call', call.id);
  const ext = AUDIO_EXT[type.slice('audio/'.length)] ?? 'audio';
  const owner = { type: 'call' as const, id: call.id, noun: 'Call' };
  const row = await receiveFile(c, owner, `${call.id}.${ext}`, call.tenant_id, type);
  const files = filesOf(c);
  for (const old of before) {
    await deleteAttachment(db, old.tenant_id, old.id);
    await files.objects.delete(old.storage_key);
  }
  return attachmentWithLink(c, row);
}

/** The signed link of a call's recording, or null when it has none. */
export async function recordingLink(c: Context<AppEnv>, call: { id: string; tenant_id: string }) {
  const rows = await listAttachments(c.get('services').db, call.tenant_id, 'call', call.id);
  const latest = rows.at(-1);
  return latest ? (await linkOf(c, latest)).url : null;
}
