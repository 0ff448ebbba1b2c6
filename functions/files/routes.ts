import {
  Attachment,
  AttachmentList,
  AttachmentRef,
  DOWNLOAD_REFUSED,
  DownloadParams,
  DownloadQuery,
  FILE_DOCS,
} from '../../shared/files/schemas';
import { ErrorBody } from '../../shared/http/error-body';
import { Detail } from '../../shared/http/errors';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';

export const downloadFile = defineRoute({
  operationId: 'downloadFile',
  method: 'get',
  path: '/api/v1/files/{file_id}',
  summary: 'Download a file by its signed link',
  description:
    "What `download_url` (an attachment) and a recording's 302 point at: no credential, the query is the credential (an HMAC of tenant, id and expiry). 403 once expired or when the signature is wrong; 404 when the file was deleted. Serves exactly the stored bytes with `Content-Disposition: attachment` (the name RFC 6266-encoded), `X-Content-Type-Options: nosniff`, and `application/octet-stream` for types a browser would render (HTML, SVG, XML, JavaScript). One byte range may be asked with `Range: bytes=first-last` (or `first-`, or `-suffix`): 206 with `Content-Range`, for a resumed download or an audio player's seek; a range that starts past the end is 416; several ranges, or an `If-Range` that is not the file's `ETag` (its sha256, quoted), get the whole file.",
  tags: ['Files'],
  params: DownloadParams,
  query: DownloadQuery,
  paramText: {
    file_id: 'The attachment or recording id (`att_…`)',
    tenant: 'The tenant the file belongs to (signed)',
    expires: 'When the link expires, Unix seconds (signed)',
    signature: 'HMAC-SHA256 of tenant, id and expiry, hex',
  },
  responses: {
    200: { description: 'The bytes', mediaTypes: ['application/octet-stream'] },
    206: { description: 'The byte range asked with Range', mediaTypes: ['application/octet-stream'] },
    403: DOWNLOAD_REFUSED,
    404: { description: 'Deleted', schema: ErrorBody, example: { detail: Detail.resourceNotFound('File') } },
    416: {
      description: 'A Range that starts past the end of the file',
      schema: ErrorBody,
      example: { detail: Detail.rangeNotSatisfiable(2048) },
    },
  },
});

export const components = defineComponents({
  output: { Attachment, AttachmentList, AttachmentRef },
  docs: FILE_DOCS,
});
