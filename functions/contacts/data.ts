import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Executor } from '../../shared/db/schema';
import type { CompaniesTable, ContactsTable } from '../../shared/db/tables/contacts_kb';
import type { ContactRef } from '../../shared/events/catalog';
import { iso } from '../../shared/events/emit';

export type ContactRow = Selectable<ContactsTable> & { joined_company_name: string | null };
export type CompanyRow = Selectable<CompaniesTable>;

/** Contacts with their company's name (the record's company_name). */
export const contactsWithCompany = (db: Executor, tenantId: string) =>
  db
    .selectFrom('contacts')
    .leftJoin('companies', 'companies.id', 'contacts.company_id')
    .selectAll('contacts')
    .select('companies.name as joined_company_name')
    .where('contacts.tenant_id', '=', tenantId);

export const SOURCE_OF = { helpdesk_a: 'helpdesk_a_sync', helpdesk_b: 'helpdesk_b_sync' } as const;

const companyNameOf = (r: ContactRow) => r.joined_company_name ?? r.company_name ?? null;

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

export const fullName = (first: string | null, last: string | null) =>
  [first, last].filter((p) => p && p.length > 0).join(' ') || null;

/** `data.contact` of dashboard events (no `source`). */
export const dashboardContactRef = (r: ContactRow): ContactRef => ({
  id: r.id,
  external_id: r.external_id,
  first_name: r.first_name,
  last_name: r.last_name,
  name: fullName(r.first_name, r.last_name),
  email: r.email,
  phone: r.phone,
  company_id: r.company_id,
  company_name: companyNameOf(r),
});

/** `data.contact` of sync events. */
export const syncContactRef = (r: Selectable<ContactsTable>): ContactRef => {
  const provider = r.sync_provider ?? 'helpdesk_a';
  return {
    id: r.id,
    external_id: r.external_id,
    provider_type: provider,
    source: SOURCE_OF[provider],
    first_name: r.first_name,
    last_name: r.last_name,
    name: fullName(r.first_name, r.last_name),
    email: r.email,
    phone: r.phone,
    mobile: r.mobile,
    company_name: r.company_name,
    active: r.sync_active,
  };
};

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

/**
 * companies.contact_count = live contacts pointing at the company. Recomputed (not incremented)
 * inside the transaction that changed a contact's company or liveness, so it cannot drift.
 */
export async function refreshContactCounts(trx: Executor, companyIds: (string | null | undefined)[]) {
  const ids = [...new Set(companyIds.filter((id): id is string => !!id))];
  if (ids.length === 0) return;
  await trx
    .updateTable('companies')
    .set({
      contact_count: sql<number>`(select count(*)::int from contacts c where c.company_id = companies.id and c.deleted_at is null)`,
    })
    .where('id', 'in', ids)
    .execute();
}

/** `%`/`_` are literal in user search text. */
