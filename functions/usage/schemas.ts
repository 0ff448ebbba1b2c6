import * as z from 'zod';
import { isoDateTimeOrDate } from '../../shared/http/instants';
import { pageQuery } from '../../shared/http/pagination';
import { isServablePeriod, METRICS, PERIOD_RE } from '../../shared/usage/plans';
import { GROUP_BY } from '../../shared/usage/query';

export const USAGE_PAGE = { defaultLimit: 50, maxLimit: 200 } as const;

const Period = z
  .string()
  // a malformed period gets its one issue, not also the range's
  .regex(PERIOD_RE, { message: 'period must be YYYY-MM', abort: true })
  .refine(isServablePeriod, 'period must be between 0001-01 and 9999-11');

export const SummaryQuery = z.strictObject({
  period: Period.optional().describe(
    'The billing period to total, `YYYY-MM` (UTC months); default: the current one',
  ),
});

/** `period` (YYYY-MM, default the current month) or an explicit `from`/`to` range; `kind` filters one metric. */
export const DetailsQuery = pageQuery(USAGE_PAGE)
  .extend({
    period: Period.optional().describe(
      'The billing period to read, `YYYY-MM` (UTC months); default: the current one. `from` and `to` replace its bounds',
    ),
    from: isoDateTimeOrDate
      .optional()
      .describe(
        'Start of the usage range (inclusive), an ISO 8601 time or date (its UTC midnight); default: the start of `period`',
      ),
    to: isoDateTimeOrDate
      .optional()
      .describe(
        'End of the usage range (exclusive), an ISO 8601 time or date (its UTC midnight); default: now when `from` is given, else the end of `period`. Must be later than `from` (else 400)',
      ),
    kind: z.enum(METRICS).optional().describe('Only usage of this metric'),
    group_by: z
      .enum(GROUP_BY)
      .optional()
      .describe(
        'Aggregate the usage by this dimension instead of listing events (`endpoint`, `api_key` and `status` group `api_requests` only)',
      ),
  })
  .strict();

export const ReportBody = z.strictObject({ period: Period.optional() });

const Totals = z.object(
  Object.fromEntries(METRICS.map((m) => [m, z.number()])) as Record<(typeof METRICS)[number], z.ZodNumber>,
);

export const SummaryResponse = z.object({
  tenant_id: z.string(),
  plan: z.string(),
  period: z.string(),
  period_start: z.string(),
  period_end: z.string(),
  totals: Totals,
  quotas: Totals,
  remaining: Totals,
  percent_used: Totals,
});

export const UsageEvent = z.object({
  id: z.string(),
  kind: z.enum(METRICS),
  quantity: z.number(),
  method: z.string().nullable(),
  endpoint: z.string().nullable(),
  status: z.number().nullable(),
  api_key_id: z.string().nullable(),
  actor: z.string().nullable(),
  reference: z.string().nullable(),
  occurred_at: z.string(),
});

export const UsageGroup = z.object({
  key: z.string().nullable(),
  kind: z.enum(METRICS),
  count: z.number(),
  quantity: z.number(),
});

export const DetailsResponse = z.object({
  group_by: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  events: z.array(UsageEvent).optional(),
  groups: z.array(UsageGroup).optional(),
  total: z.number().nullable(),
  limit: z.number().nullable(),
  offset: z.number().nullable(),
});

export const ReportResponse = z.object({
  period: z.string(),
  reported: z.array(z.string()),
  skipped: z.number(),
});
