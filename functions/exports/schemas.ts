import * as z from 'zod';
import { isoDateTimeOrDate } from '../../shared/http/instants';
import { pageQuery } from '../../shared/http/pagination';

export const EXPORT_RESOURCES = ['tickets', 'calls', 'contacts', 'conversations', 'usage'] as const;
export const EXPORT_FORMATS = ['csv', 'json'] as const;
/** Largest export: above it the job fails and asks for narrower filters. */
export const EXPORT_MAX_ROWS = 10_000;

export const CreateExportBody = z.strictObject({
  resource: z.enum(EXPORT_RESOURCES),
  format: z.enum(EXPORT_FORMATS).default('csv'),
  filters: z
    .strictObject({
      /** created_at >= created_from */
      created_from: isoDateTimeOrDate.optional(),
      /** created_at < created_to */
      created_to: isoDateTimeOrDate.optional(),
    })
    .default({}),
});

export const EXPORTS_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;
export const ListExportsQuery = pageQuery(EXPORTS_PAGE).extend({
  resource: z.enum(EXPORT_RESOURCES).optional().describe('Only exports of this resource'),
  status: z
    .enum(['pending', 'running', 'completed', 'failed'])
    .optional()
    .describe('Only exports in this status'),
});
export const ExportIdParam = z.object({ id: z.string().min(1).max(64).describe('The export id (`exp_…`)') });

export const ExportJob = z.object({
  id: z.string(),
  resource: z.enum(EXPORT_RESOURCES),
  format: z.enum(EXPORT_FORMATS),
  filters: z.record(z.string(), z.unknown()),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  row_count: z.number().nullable(),
  error: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  download_url: z.string().nullable(),
});
