import * as z from 'zod';
import { CompanyRecord, ContactRecord } from '../../shared/contacts/records';
import { smtpLimits } from '../../shared/http/email';
import { ianaTimeZone, isoDateTime } from '../../shared/http/instants';
import { cursorPageQuery, pageQuery } from '../../shared/http/pagination';

// the contact and company records are shared with the search: shared/contacts/records.ts
export { CompanyRecord, ContactRecord };

/**
 * Request and response schemas of contacts, companies and contact sync. The handlers validate
 * with these and routes.ts documents the same objects.
 */

export const CONTACTS_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

/** Path ids: short, URL-safe; anything else is the spec's 422 at ["path", "<name>"]. */
const pathId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id: letters, digits, _ and - only');

export const ContactIdParam = z.object({ contact_id: pathId.describe('The contact id (`ctc_…`)') });
export const CompanyIdParam = z.object({ company_id: pathId.describe('The company id (`cmp_…`)') });

const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * `q` of the contact and company lists: a substring served by the tenant-first trigram index
 * (schema/0019_list_filter_counts.sql). A text without 3 letters or digits in a row holds no
 * trigram the index can look up, so it would read every row of the tenant (docs/contacts.md).
 */
const SUBSTRING_RUN = /[\p{L}\p{N}]{3}/u;
const substringQuery = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((q) => SUBSTRING_RUN.test(q), {
    message: 'Should hold at least 3 letters or digits in a row',
  });

/** custom_attrs: a flat-ish JSON object, at most 100 keys and 16 KiB serialized. */
const CustomAttrs = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((v) => Object.keys(v).length <= 100, 'At most 100 custom attributes')
  .refine((v) => JSON.stringify(v).length <= 16_384, 'custom_attrs must serialize to at most 16384 bytes');

/** Tags: trimmed, 1-50 chars each, at most 50, de-duplicated in the caller's order. */
const Tags = z
  .array(text(50))
  .max(50)
  .transform((tags) => [...new Set(tags)]);

const HttpUrl = z.url({ protocol: /^https?$/ }).max(2048);

const contactFields = {
  external_id: text(255).nullish(),
  first_name: text(255).nullish(),
  last_name: text(255).nullish(),
  email: z
    .email()
    .max(320)
    .refine(...smtpLimits)
    .transform((e) => e.toLowerCase())
    .nullish(),
  phone: text(50).nullish(),
  role: text(50).nullish(),
  locale: text(35).nullish(),
  timezone: ianaTimeZone.nullish(),
  company_id: text(64).nullish(),
  custom_attrs: CustomAttrs.optional(),
  tags: Tags.optional(),
  unsubscribed_from_emails: z.boolean().optional(),
  last_seen_at: isoDateTime.nullish(),
};

export const CreateContactBody = z
  .strictObject(contactFields)
  .superRefine((v, ctx) => {
    if (!v.email && !v.phone && !v.external_id && !v.first_name && !v.last_name)
      ctx.addIssue({
        code: 'custom',
        message: 'At least one of email, phone, external_id, first_name or last_name is required',
        path: [],
      });
  })
  .meta({
    anyOf: ['email', 'phone', 'external_id', 'first_name', 'last_name'].map((f) => ({ required: [f] })),
  });
export type CreateContactBody = z.infer<typeof CreateContactBody>;

export const UpdateContactBody = z.strictObject(contactFields);
export type UpdateContactBody = z.infer<typeof UpdateContactBody>;

const boolFlag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

export const ListContactsQuery = cursorPageQuery({ ...CONTACTS_PAGE, items: 'contacts' }).extend({
  q: substringQuery
    .optional()
    .describe(
      'Case-insensitive substring of the first name, last name, full name, email or phone (at least 3 letters or digits in a row)',
    ),
  tag: text(50).optional().describe('Only contacts carrying this tag'),
  company_id: text(64).optional().describe('Only contacts of this company (`cmp_…`)'),
  updated_since: isoDateTime
    .optional()
    .describe(
      'Only contacts with `updated_at` at or after this ISO 8601 time (inclusive); pair with `sort=updated_at` to mirror',
    ),
  sort: z
    .enum(['created_at', 'updated_at'])
    .default('created_at')
    .describe(
      'Order: `created_at` (default) newest first; `updated_at` oldest change first, then id (for incremental mirroring)',
    ),
  include_deleted: boolFlag.describe('`true` to include soft-deleted contacts (default `false`)'),
});

const companyFields = {
  name: text(255),
  domain: text(255)
    .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'Invalid domain name')
    .transform((d) => d.toLowerCase())
    .nullish(),
  industry: text(100).nullish(),
  logo_url: HttpUrl.nullish(),
  notes: z.string().max(10_000).nullish(),
  plan: text(100).nullish(),
  size: text(50).nullish(),
  sla_tier: text(100).nullish(),
  website: HttpUrl.nullish(),
  monthly_spend: z.number().finite().min(0).max(1e12).nullish(),
  custom_attrs: CustomAttrs.optional(),
  tags: Tags.optional(),
};

export const CreateCompanyBody = z.strictObject(companyFields);
export type CreateCompanyBody = z.infer<typeof CreateCompanyBody>;
export const UpdateCompanyBody = z.strictObject(companyFields).partial();
export type UpdateCompanyBody = z.infer<typeof UpdateCompanyBody>;

export const ListCompaniesQuery = cursorPageQuery({ ...CONTACTS_PAGE, items: 'companies' }).extend({
  q: substringQuery
    .optional()
    .describe('Case-insensitive substring of the name or domain (at least 3 letters or digits in a row)'),
  tag: text(50).optional().describe('Only companies carrying this tag'),
  include_deleted: boolFlag.describe('`true` to include soft-deleted companies (default `false`)'),
});

// ---- response records ---------------------------------------------------------------------

const ts = z.iso.datetime();

// ---- contact sync -------------------------------------------------------------------------

export const SYNC_PROVIDERS = ['helpdesk_a', 'helpdesk_b'] as const;
export const ProviderParam = z.object({
  provider: z.enum(SYNC_PROVIDERS).describe('The external helpdesk whose connection this is'),
});
export const SyncRunIdParam = z.object({ run_id: pathId.describe('The sync run id (`syn_…`)') });

export const PutConnectionBody = z.strictObject({
  base_url: z.url({ protocol: /^https?$/ }).max(2048),
  api_token: z.string().min(1).max(4096),
});

export const TriggerRunBody = z.strictObject({
  provider: z.enum(SYNC_PROVIDERS),
  mode: z.enum(['full', 'incremental']).default('incremental'),
});

export const ListRunsQuery = pageQuery({ defaultLimit: 20, maxLimit: 100 }).extend({
  provider: z.enum(SYNC_PROVIDERS).optional().describe('Only runs that imported from this external helpdesk'),
});

export const ConnectionRecord = z.object({
  provider: z.enum(SYNC_PROVIDERS),
  base_url: z.string(),
  has_token: z.literal(true),
  created_at: ts,
  updated_at: ts,
});

export const SyncRunRecord = z.object({
  id: z.string(),
  provider: z.enum(SYNC_PROVIDERS),
  mode: z.enum(['full', 'incremental']),
  status: z.enum(['running', 'succeeded', 'failed']),
  pages: z.number().int(),
  fetched: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  deactivated: z.number().int(),
  skipped: z.number().int(),
  error: z.string().nullable(),
  triggered_by: z.string(),
  started_at: ts,
  finished_at: ts.nullable(),
});
