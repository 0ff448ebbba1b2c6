import * as z from 'zod';
import { ErrorBody, unknownIdResponse } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { cursorList } from '../../shared/http/pagination';
import { defineRoute } from '../../shared/http/route';
import {
  CompanyIdParam,
  CompanyRecord,
  ConnectionRecord,
  ContactIdParam,
  ContactRecord,
  CreateCompanyBody,
  CreateContactBody,
  ListCompaniesQuery,
  ListContactsQuery,
  ListRunsQuery,
  ProviderParam,
  PutConnectionBody,
  SyncRunIdParam,
  SyncRunRecord,
  TriggerRunBody,
  UpdateCompanyBody,
  UpdateContactBody,
} from './schemas';

const page = <K extends string>(key: K, item: z.ZodType) =>
  z.object({
    [key]: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
const contacts = ['Contacts'];
const companies = ['Companies'];
const sync = ['Contact sync'];

export const createContact = defineRoute({
  operationId: 'createContact',
  emits: ['contact.created'],
  method: 'post',
  path: '/api/v2/contacts',
  access: { role: 'agent' },
  summary: 'Create a contact',
  description:
    'Agent or higher. At least one of email, phone, external_id, first_name, last_name. Email is stored lower-cased and is unique among live contacts (soft-deleted ones do not count). Emits `contact.created` once.',
  tags: contacts,
  body: CreateContactBody,
  responses: {
    201: { description: 'The contact', schema: ContactRecord },
    409: {
      description: 'Email or external_id already used by a live contact',
      schema: ErrorBody,
      example: { detail: 'A contact with this email already exists' },
    },
  },
});

export const listContacts = defineRoute({
  operationId: 'listContacts',
  method: 'get',
  path: '/api/v2/contacts',
  access: { role: 'agent' },
  summary: 'List contacts',
  description:
    'Newest first by default; `sort=updated_at` is ascending by updated_at then id (for incremental reads with `updated_since`, which is inclusive). `q` searches first/last/full name, email and phone as a case-insensitive substring holding at least 3 letters or digits in a row (a shorter one is a 422); `tag` filters by tag; `include_deleted=true` also lists soft-deleted contacts.',
  tags: contacts,
  query: ListContactsQuery,
  responses: { 200: { description: 'A page of contacts', schema: cursorList('contacts', ContactRecord) } },
});

export const getContact = defineRoute({
  operationId: 'getContact',
  description: 'One contact. A soft-deleted one is 404 `Contact not found` until it is restored.',
  method: 'get',
  path: '/api/v2/contacts/{contact_id}',
  access: { role: 'agent' },
  summary: 'Get a contact',
  tags: contacts,
  params: ContactIdParam,
  responses: {
    200: { description: 'The contact', schema: ContactRecord },
    404: unknownIdResponse('Contact'),
  },
});

export const updateContact = defineRoute({
  operationId: 'updateContact',
  emits: ['contact.updated'],
  method: 'patch',
  path: '/api/v2/contacts/{contact_id}',
  access: { role: 'agent' },
  summary: 'Update a contact',
  description:
    'Only the fields sent change; null clears a field. Emits exactly one `contact.updated` when something changed; a PATCH that changes nothing answers 200 with no event and keeps updated_at.',
  tags: contacts,
  params: ContactIdParam,
  body: UpdateContactBody,
  responses: {
    200: { description: 'The contact', schema: ContactRecord },
    404: unknownIdResponse('Contact'),
    409: { description: 'Email or external_id already used by another live contact', schema: ErrorBody },
  },
});

export const deleteContact = defineRoute({
  operationId: 'deleteContact',
  emits: ['contact.deleted'],
  method: 'delete',
  path: '/api/v2/contacts/{contact_id}',
  access: { role: 'agent' },
  summary: 'Soft-delete a contact',
  description:
    'Sets deleted_at, hides the contact from gets and lists, frees its email and external_id, updates its company contact_count, emits `contact.deleted` once.',
  tags: contacts,
  params: ContactIdParam,
  responses: { 204: { description: 'Deleted' }, 404: unknownIdResponse('Contact') },
});

export const restoreContact = defineRoute({
  operationId: 'restoreContact',
  emits: ['contact.updated'],
  method: 'post',
  path: '/api/v2/contacts/{contact_id}/restore',
  access: { role: 'agent' },
  summary: 'Restore a soft-deleted contact',
  description:
    'No body. A deleted contact is un-deleted and `contact.updated` is emitted once. A contact that is not deleted is returned unchanged, without event.',
  tags: contacts,
  params: ContactIdParam,
  responses: {
    200: { description: 'The full contact record', schema: ContactRecord },
    404: unknownIdResponse('Contact'),
    409: {
      description: 'Its email (or external_id) now belongs to a live contact; nothing changed',
      schema: ErrorBody,
      example: { detail: 'Cannot restore: another contact now uses this email' },
    },
  },
});

export const createCompany = defineRoute({
  operationId: 'createCompany',
  description: 'Creates a company. A blank name is 422. Contacts link to it through `company_id`.',
  method: 'post',
  path: '/api/v2/companies',
  access: { role: 'agent' },
  summary: 'Create a company',
  tags: companies,
  body: CreateCompanyBody,
  responses: { 201: { description: 'The company', schema: CompanyRecord } },
});

export const listCompanies = defineRoute({
  operationId: 'listCompanies',
  method: 'get',
  path: '/api/v2/companies',
  access: { role: 'agent' },
  summary: 'List companies',
  description:
    'Newest first. `q` searches name and domain (at least 3 letters or digits in a row, as for contacts); `tag` filters; `include_deleted=true` adds soft-deleted ones.',
  tags: companies,
  query: ListCompaniesQuery,
  responses: { 200: { description: 'A page of companies', schema: cursorList('companies', CompanyRecord) } },
});

export const getCompany = defineRoute({
  operationId: 'getCompany',
  description: 'One company. A soft-deleted one is 404 `Company not found` until it is restored.',
  method: 'get',
  path: '/api/v2/companies/{company_id}',
  access: { role: 'agent' },
  summary: 'Get a company',
  tags: companies,
  params: CompanyIdParam,
  responses: {
    200: { description: 'The company', schema: CompanyRecord },
    404: unknownIdResponse('Company'),
  },
});

export const updateCompany = defineRoute({
  operationId: 'updateCompany',
  method: 'patch',
  path: '/api/v2/companies/{company_id}',
  access: { role: 'agent' },
  summary: 'Update a company',
  description: 'A PATCH that changes nothing answers 200 and keeps updated_at.',
  tags: companies,
  params: CompanyIdParam,
  body: UpdateCompanyBody,
  responses: {
    200: { description: 'The company', schema: CompanyRecord },
    404: unknownIdResponse('Company'),
  },
});

export const deleteCompany = defineRoute({
  operationId: 'deleteCompany',
  method: 'delete',
  path: '/api/v2/companies/{company_id}',
  access: { role: 'agent' },
  summary: 'Soft-delete a company',
  description: 'Its contacts keep company_id (a restore brings the link back).',
  tags: companies,
  params: CompanyIdParam,
  responses: { 204: { description: 'Deleted' }, 404: unknownIdResponse('Company') },
});

export const restoreCompany = defineRoute({
  operationId: 'restoreCompany',
  method: 'post',
  path: '/api/v2/companies/{company_id}/restore',
  access: { role: 'agent' },
  summary: 'Restore a soft-deleted company',
  description: 'No body. A company that is not deleted is returned unchanged.',
  tags: companies,
  params: CompanyIdParam,
  responses: {
    200: { description: 'The full company record', schema: CompanyRecord },
    404: unknownIdResponse('Company'),
  },
});

export const putConnection = defineRoute({
  operationId: 'putSyncConnection',
  method: 'put',
  path: '/api/sync/contacts/connections/{provider}',
  access: { role: 'tenant_admin' },
  summary: 'Create or replace a helpdesk connection',
  description:
    'tenant_admin. base_url must be https to a public host whose name resolves to public addresses only (hosts on SYNC_HTTP_ALLOW_HOSTS excepted); the API token is stored encrypted and never returned.',
  tags: sync,
  params: ProviderParam,
  body: PutConnectionBody,
  responses: { 200: { description: 'The connection (no token)', schema: ConnectionRecord } },
});

export const listConnections = defineRoute({
  operationId: 'listSyncConnections',
  description:
    'The helpdesk connections the contact sync reads from; API tokens are never returned (`has_token` says whether one is stored).',
  method: 'get',
  path: '/api/sync/contacts/connections',
  access: { role: 'tenant_admin' },
  summary: 'List helpdesk connections',
  tags: sync,
  responses: {
    200: { description: 'Connections', schema: z.object({ connections: z.array(ConnectionRecord) }) },
  },
});

export const deleteConnection = defineRoute({
  operationId: 'deleteSyncConnection',
  description:
    'Removes the connection of a provider; contacts synced from it stay. 404 when none is configured.',
  method: 'delete',
  path: '/api/sync/contacts/connections/{provider}',
  access: { role: 'tenant_admin' },
  summary: 'Remove a helpdesk connection',
  tags: sync,
  params: ProviderParam,
  responses: { 204: { description: 'Removed' }, 404: unknownIdResponse('Sync connection') },
});

export const triggerRun = defineRoute({
  operationId: 'startSyncRun',
  emits: ['contact.created', 'contact.updated'],
  method: 'post',
  path: '/api/sync/contacts/runs',
  access: { role: 'tenant_admin' },
  summary: 'Run a contact sync',
  description:
    'Runs to completion inside the request. Every page is fetched first; changes are applied in one transaction only when all pages arrived, so a failed run (status `failed`, `error`) changed nothing and emitted nothing. `full` also deactivates contacts of that provider no longer upstream (one contact.updated each, once); `incremental` asks upstream only for rows changed since the last successful run.',
  tags: sync,
  body: TriggerRunBody,
  responses: {
    201: { description: 'The finished run (succeeded or failed)', schema: SyncRunRecord },
    400: {
      description: 'No connection for the provider',
      schema: ErrorBody,
      example: { detail: 'No sync connection configured for helpdesk_a' },
    },
  },
});

export const listRuns = defineRoute({
  operationId: 'listSyncRuns',
  description:
    'The contact sync runs, newest first, with their counts (fetched, created, updated, deactivated).',
  method: 'get',
  path: '/api/sync/contacts/runs',
  access: { role: 'tenant_admin' },
  summary: 'List sync runs',
  tags: sync,
  query: ListRunsQuery,
  responses: { 200: { description: 'Newest first', schema: page('runs', SyncRunRecord) } },
});

export const getRun = defineRoute({
  operationId: 'getSyncRun',
  description: 'One sync run and its counts. 404 for an unknown run.',
  method: 'get',
  path: '/api/sync/contacts/runs/{run_id}',
  access: { role: 'tenant_admin' },
  summary: 'Get a sync run',
  tags: sync,
  params: SyncRunIdParam,
  responses: { 200: { description: 'The run', schema: SyncRunRecord }, 404: unknownIdResponse('Sync run') },
});

export const components = defineComponents({
  docs: {
    Contact: {
      description: 'A person conversations are with, created here or imported by a contact sync.',
      fields: {
        id: 'Contact id (`ctc_…`)',
        external_id: 'Id in your own or the synced system',
        first_name: 'First name',
        last_name: 'Last name',
        email: 'Email address (unique per tenant among live contacts)',
        phone: 'Phone number (E.164)',
        role: 'Job title',
        locale: 'Preferred locale (BCP 47)',
        timezone: 'IANA time zone',
        company_id: 'Company they belong to (`cmp_…`)',
        company_name: "The company's name",
        conversation_count: 'Conversations with them',
        custom_attrs: 'Your own attributes (string, number or boolean values)',
        tags: 'Labels',
        unsubscribed_from_emails: 'Opted out of email',
        created_at: 'When it was created (ISO 8601 UTC)',
        updated_at: 'Last change',
        deleted_at: 'When it was soft-deleted (restore with POST …/restore)',
        last_seen_at: 'Last activity',
        source: 'The sync that imported it, if any',
        active: '`false` once a full sync no longer finds it upstream',
      },
    },
    Company: {
      description: 'An organisation contacts belong to.',
      fields: {
        id: 'Company id (`cmp_…`)',
        name: 'Name',
        domain: 'Email/web domain',
        industry: 'Industry',
        logo_url: 'Logo',
        notes: 'Free-form notes',
        plan: "The company's plan with you",
        size: 'Head-count band',
        sla_tier: 'Support tier',
        website: 'Website',
        contact_count: 'Live contacts in it',
        conversation_count: 'Conversations with its contacts',
        monthly_spend: 'Monthly spend',
        custom_attrs: 'Your own attributes',
        tags: 'Labels',
        created_at: 'When it was created (ISO 8601 UTC)',
        updated_at: 'Last change',
        deleted_at: 'When it was soft-deleted',
      },
    },
  },
  output: {
    Contact: ContactRecord,
    Company: CompanyRecord,
    SyncConnection: ConnectionRecord,
    SyncRun: SyncRunRecord,
  },
  input: {
    ContactCreate: CreateContactBody,
    ContactUpdate: UpdateContactBody,
    CompanyCreate: CreateCompanyBody,
    CompanyUpdate: UpdateCompanyBody,
    SyncConnectionPut: PutConnectionBody,
    SyncRunCreate: TriggerRunBody,
  },
});
