import type { Selectable } from 'kysely';
import * as z from 'zod';
import type { CompaniesTable, ContactsTable } from '../db/tables/contacts_kb';
import { iso } from '../events/emit';

/**
 * A contact and a company as every read returns them: the contacts function's reads and the search
 * hits (functions/search) show one record, so each is written once here.
 */

const ts = z.iso.datetime();

export const ContactRecord = z.object({
  id: z.string(),
  external_id: z.string().nullable(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  role: z.string().nullable(),
  locale: z.string().nullable(),
  timezone: z.string().nullable(),
  company_id: z.string().nullable(),
  company_name: z.string().nullable(),
  conversation_count: z.number().int(),
  custom_attrs: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  unsubscribed_from_emails: z.boolean(),
  created_at: ts,
  updated_at: ts,
  deleted_at: ts.nullable(),
  last_seen_at: ts.nullable(),
  /** `helpdesk_a_sync` / `helpdesk_b_sync` for synced contacts, null for dashboard ones */
  source: z.enum(['helpdesk_a_sync', 'helpdesk_b_sync']).nullable(),
  /** false once a full sync no longer finds the contact upstream (or upstream marks it inactive) */
  active: z.boolean(),
});

export const CompanyRecord = z.object({
  id: z.string(),
  name: z.string(),
  domain: z.string().nullable(),
  industry: z.string().nullable(),
  logo_url: z.string().nullable(),
  notes: z.string().nullable(),
  plan: z.string().nullable(),
  size: z.string().nullable(),
  sla_tier: z.string().nullable(),
  website: z.string().nullable(),
  contact_count: z.number().int(),
  conversation_count: z.number().int(),
  monthly_spend: z.number().nullable(),
  custom_attrs: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  created_at: ts,
  updated_at: ts,
  deleted_at: ts.nullable(),
});

export type ContactRow = Selectable<ContactsTable> & { joined_company_name: string | null };
export type CompanyRow = Selectable<CompaniesTable>;

export const SOURCE_OF = { helpdesk_a: 'helpdesk_a_sync', helpdesk_b: 'helpdesk_b_sync' } as const;

export const companyNameOf = (r: ContactRow) => r.joined_company_name ?? r.company_name ?? null;

export const contactView = (r: ContactRow) => ({
  id: r.id,
  external_id: r.external_id,
  first_name: r.first_name,
  last_name: r.last_name,
  email: r.email,
  phone: r.phone,
  role: r.role,
  locale: r.locale,
  timezone: r.timezone,
  company_id: r.company_id,
  company_name: companyNameOf(r),
  conversation_count: Number(r.conversation_count),
  custom_attrs: r.custom_attrs ?? {},
  tags: r.tags ?? [],
  unsubscribed_from_emails: r.unsubscribed_from_emails,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  deleted_at: iso(r.deleted_at),
  last_seen_at: iso(r.last_seen_at),
  source: r.sync_provider ? SOURCE_OF[r.sync_provider] : null,
  active: r.sync_active,
});

export const companyView = (r: CompanyRow) => ({
  id: r.id,
  name: r.name,
  domain: r.domain,
  industry: r.industry,
  logo_url: r.logo_url,
  notes: r.notes,
  plan: r.plan,
  size: r.size,
  sla_tier: r.sla_tier,
  website: r.website,
  contact_count: Number(r.contact_count),
  conversation_count: Number(r.conversation_count),
  monthly_spend: r.monthly_spend == null ? null : Number(r.monthly_spend),
  custom_attrs: r.custom_attrs ?? {},
  tags: r.tags ?? [],
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  deleted_at: iso(r.deleted_at),
});
