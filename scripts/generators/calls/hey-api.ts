// @hey-api/openapi-ts (fetch client): its SDK functions and types against the running server.

import { API_KEY, BASE_URL, expect } from './expect.js';
import { client } from './gen/client.gen.js';
import { createTicket, getTicket, listTickets } from './gen/sdk.gen.js';
import type {
  CreateTicketErrors,
  ErrorBody,
  ListTicketsData,
  Ticket,
  ValidationIssue,
} from './gen/types.gen.js';

client.setConfig({ baseUrl: BASE_URL, headers: { 'X-API-Key': API_KEY } });

// an enum-list filter is a string (one value or a comma list), never a number
const status: NonNullable<ListTicketsData['query']>['status'] = 'open,new';
// @ts-expect-error a number is no status filter
const notStatus: NonNullable<ListTicketsData['query']>['status'] = 42;
void notStatus;

const created = await createTicket({ body: { subject: 'From hey-api' } });
expect(
  created.response?.status === 201 && created.data,
  `201 from createTicket, got ${created.response?.status}`,
);
const ticket: Ticket = created.data;
expect(ticket.subject === 'From hey-api', 'the subject sent');

const read = await getTicket({ path: { ticket_id: ticket.id } });
expect(read.data?.id === ticket.id, 'the created ticket read back');

const list = await listTickets({ query: { status, limit: 5 } });
expect(list.data && Array.isArray(list.data.tickets), 'a page of tickets');
expect(typeof list.data.total === 'number', 'a total');

const anonymous = await listTickets({ headers: { 'X-API-Key': null } });
expect(anonymous.response?.status === 401, `401 without a key, got ${anonymous.response?.status}`);
const unauthorized: ErrorBody | undefined = anonymous.error as ErrorBody | undefined;
expect(typeof unauthorized?.detail === 'string', 'a string detail on 401');

const invalid = await createTicket({ body: { subject: '' } });
expect(invalid.response?.status === 422, `422 for an empty subject, got ${invalid.response?.status}`);
const refused = invalid.error as CreateTicketErrors[422];
expect(Array.isArray(refused.detail), 'a list of issues on 422');
const issues: ValidationIssue[] = refused.detail as ValidationIssue[];
expect(issues[0]?.loc.includes('subject'), 'the issue names the field');

console.log('list, create, read, 401, 422');
