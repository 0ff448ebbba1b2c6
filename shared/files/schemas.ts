import * as z from 'zod';
import { ErrorBody, errorResponse } from '../http/error-body';
import { Detail } from '../http/errors';
import type { RouteDef } from '../http/openapi';
import { defineRoute } from '../http/route';
import { LinkDetail } from './links';

/**
 * Never in a file's name: a path separator, a control character (C0, DEL, C1), or a text-direction
 * control (the marks, embeddings, overrides and isolates), which make `invoice\u202Efdp.exe` read as
 * `invoiceexe.pdf` in the console and in a mail client while it saves as an .exe.
 */
const FORBIDDEN_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x1f], // C0 controls
  [0x7f, 0x9f], // DEL and C1 controls
  [0x200e, 0x200f], // left-to-right and right-to-left marks
  [0x202a, 0x202e], // embeddings and overrides
  [0x2066, 0x2069], // isolates
];
const isForbidden = (ch: string) => {
  const code = ch.charCodeAt(0);
  return ch === '/' || ch === '\\' || FORBIDDEN_RANGES.some(([from, to]) => code >= from && code <= to);
};

/** A file's name as given: 1-255 characters, none of the above, not `.` or `..`. */
export const Filename = z
  .string()
  .trim()
  .min(1, 'filename must not be empty')
  .max(255)
  .refine((v) => ![...v].some(isForbidden) && v !== '.' && v !== '..', {
    message: 'filename must not contain a path separator, control characters or text-direction controls',
  });

export const UploadQuery = z.strictObject({
  filename: Filename.describe(
    'The name to store the file under (1-255 characters; no `/`, `\\`, control characters or text-direction controls such as U+202E; not `.` or `..`)',
  ),
});

const fields = {
  id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  created_at: z.string(),
};
/** The record as reads and events carry it (no link). */
export const AttachmentRef = z.object(fields);
/** The record with a fresh signed link (an upload's answer, a read). */
export const Attachment = z.object({
  ...fields,
  download_url: z.string(),
  download_url_expires_at: z.string(),
});
export const AttachmentList = z.object({ attachments: z.array(Attachment) });

export const AttachmentIdParam = z.strictObject({
  attachment_id: z.string().min(1).max(64).describe('The attachment id (`att_…`)'),
});

/** `attachment_ids` of a reply or a message: files uploaded to the same ticket or conversation. */
export const AttachmentIds = z.array(z.string().min(1).max(64)).max(20).optional();

export const ATTACHMENT_EXAMPLE = {
  id: 'att_0mhbq6x1bPq3Zr8sLd2WnE',
  filename: 'error-E451.png',
  content_type: 'image/png',
  size: 48213,
  sha256: '9f2c1e5a0b7d4c3e8f6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60',
  created_at: '2026-03-14T09:30:12.518Z',
};
export const ATTACHMENT_WITH_LINK_EXAMPLE = {
  ...ATTACHMENT_EXAMPLE,
  download_url:
    'https://support.example.com/api/v1/files/att_0mhbq6x1bPq3Zr8sLd2WnE?tenant=ten_0mha1b2c3D4e5F6g7H8i9J&expires=1773481512&signature=5b1c…',
  download_url_expires_at: '2026-03-14T09:45:12.000Z',
};

export const FILE_DOCS = {
  AttachmentRef: {
    description: 'A stored file as replies, messages and events carry it: its record, without a link.',
    fields: {
      id: 'Attachment id (`att_…`)',
      filename: 'The name it was uploaded under (`filename`)',
      content_type: 'The media type it was uploaded with (its `Content-Type`)',
      size: 'Bytes',
      sha256: 'SHA-256 of the bytes, lower-case hex',
      created_at: 'When it was uploaded (ISO 8601 UTC)',
    },
    example: ATTACHMENT_EXAMPLE,
  },
  Attachment: {
    description:
      'A stored file with a fresh signed link to its bytes. The link needs no credential and expires after ATTACHMENT_URL_TTL_S (default 900 s; then 403).',
    fields: {
      id: 'Attachment id (`att_…`)',
      filename: 'The name it was uploaded under (`filename`)',
      content_type: 'The media type it was uploaded with (its `Content-Type`)',
      size: 'Bytes',
      sha256: 'SHA-256 of the bytes, lower-case hex',
      created_at: 'When it was uploaded (ISO 8601 UTC)',
      download_url: 'Signed link to the bytes, served as an attachment; no credential needed',
      download_url_expires_at: 'When the link stops working (ISO 8601 UTC)',
    },
    example: ATTACHMENT_WITH_LINK_EXAMPLE,
  },
  AttachmentList: {
    description: 'Every file of a ticket or conversation, oldest first.',
    fields: { attachments: 'The files, each with a fresh link' },
    example: { attachments: [ATTACHMENT_WITH_LINK_EXAMPLE] },
  },
};

/** An example file the fuzz and the document send as an upload's body. */
const EXAMPLE_FILE = 'Printer log\nE-451 at 09:24\n';

interface OwnerDocs {
  /** `/api/v1/tickets/{ticket_id}` */
  base: string;
  params: z.ZodType;
  /** `Ticket`, `Conversation` (operation ids, texts, and the subject of its 404's detail) */
  noun: string;
  tag: string;
}

/** The four attachment routes of a ticket or a conversation, declared alike (docs/files.md). */
export function attachmentRoutes(o: OwnerDocs) {
  const lower = o.noun.toLowerCase();
  const unknownOwnerOrFile = errorResponse(
    `Unknown ${lower} or attachment, or one of another tenant`,
    Detail.resourceNotFound(o.noun),
  );
  const itemParams = (o.params as z.ZodObject).extend(AttachmentIdParam.shape);
  const upload = defineRoute({
    operationId: `upload${o.noun}Attachment`,
    method: 'post',
    path: `${o.base}/attachments`,
    summary: `Upload a file to a ${lower}`,
    description: `The file is the raw request body, its media type the Content-Type, its name the \`filename\` query parameter. Streamed into storage with its SHA-256 computed on the way; never kept in the database. A missing or invalid filename, a zero-byte body or a multipart/form-data envelope (send the file's bytes themselves) is 422; a body over ATTACHMENT_MAX_BYTES (default 25 MiB) is 413 before anything is stored, as is one that would take the tenant past its plan's storage cap (the detail names the cap). Send it with a reply or message through \`attachment_ids\`. An Idempotency-Key is not read here: a retried upload stores a second file.`,
    tags: [o.tag],
    params: o.params,
    query: UploadQuery,
    rawBody: {
      mediaTypes: ['application/octet-stream', '*/*'],
      description: 'The file itself, under its own Content-Type (any media type)',
      example: EXAMPLE_FILE,
    },
    responses: {
      201: { description: 'The stored file, with a signed link', schema: Attachment },
      404: unknownOwnerOrFile,
      413: {
        description: 'Larger than ATTACHMENT_MAX_BYTES, or past the plan storage cap',
        schema: ErrorBody,
        example: { detail: 'Storage limit reached: the free plan keeps at most 100 MiB of files' },
      },
    },
  });
  const list = defineRoute({
    operationId: `list${o.noun}Attachments`,
    method: 'get',
    path: `${o.base}/attachments`,
    summary: `List a ${lower}'s files`,
    description: `Every file uploaded to the ${lower}, oldest first, each with a fresh signed link.`,
    tags: [o.tag],
    params: o.params,
    responses: { 200: { description: 'The files', schema: AttachmentList }, 404: unknownOwnerOrFile },
  });
  const get = defineRoute({
    operationId: `get${o.noun}Attachment`,
    method: 'get',
    path: `${o.base}/attachments/{attachment_id}`,
    summary: `Get a ${lower}'s file`,
    description: 'The record with a fresh signed link (each read signs a new one).',
    tags: [o.tag],
    params: itemParams,
    responses: { 200: { description: 'The file', schema: Attachment }, 404: unknownOwnerOrFile },
  });
  const remove = defineRoute({
    operationId: `delete${o.noun}Attachment`,
    method: 'delete',
    path: `${o.base}/attachments/{attachment_id}`,
    summary: `Delete a ${lower}'s file`,
    description: 'Removes the record and its bytes; links already handed out stop working (404).',
    tags: [o.tag],
    params: itemParams,
    responses: { 204: { description: 'Deleted' }, 404: unknownOwnerOrFile },
  });
  return { upload, list, get, remove } satisfies Record<string, RouteDef>;
}

export const DownloadParams = z.strictObject({ file_id: z.string().min(1).max(64) });
export const DownloadQuery = z.strictObject({
  tenant: z.string().min(1).max(128),
  expires: z.coerce.number().int().nonnegative(),
  signature: z.string().regex(/^[0-9a-fA-F]{64}$/, 'a 64-digit hex signature'),
});

export const DOWNLOAD_REFUSED = {
  description: 'Signature wrong, or link expired',
  schema: ErrorBody,
  example: { detail: LinkDetail.expired },
};

/** The raw body of a recording upload: any `audio/*` media type. */
export const RECORDING_BODY = {
  mediaTypes: ['audio/wav', 'audio/mpeg', 'audio/ogg', 'audio/*'],
  description: 'The recording itself, under its audio Content-Type',
  example: 'RIFF\u0024\u0000\u0000\u0000WAVEfmt ',
} as const;
