// orval: its fetch client (typed by status) and its zod schemas (imported: a file that throws
// when loaded fails here), the answers parsed with the zod schemas.

import { API_KEY, expect } from './expect.js';
import { createTicket, getTicket, type ListTicketsParams, listTickets } from './gen/fetch.js';
import {
  CreateTicketBody,
  CreateTicketResponse,
  GetTicketResponse,
  ListTicketsQueryParams,
  ListTicketsResponse,
} from './gen/zod.js';

const withKey: RequestInit = { headers: { 'X-API-Key': API_KEY } };

// an enum-list filter is a string (one value or a comma list), never a number
const status: ListTicketsParams['status'] = 'open,new';
// @ts-expect-error a number is no status filter
const notStatus: ListTicketsParams['status'] = 42;
void notStatus;
expect(ListTicketsQueryParams.safeParse({ status }).success, 'the zod query schema to take a comma list');
expect(
  !ListTicketsQueryParams.safeParse({ status: 'nope' }).success,
  'the zod query schema to refuse an unknown status',
);

const body = { subject: 'From orval' };
expect(CreateTicketBody.safeParse(body).success, 'the zod body schema to take a ticket');
const created = await createTicket(body, withKey);
expect(created.status === 201, `201 from createTicket, got ${created.status}`);
const ticket = CreateTicketResponse.parse(created.data);

const read = await getTicket(ticket.id, withKey);
expect(read.status === 200, `200 from getTicket, got ${read.status}`);
expect(GetTicketResponse.parse(read.data).id === ticket.id, 'the created ticket read back');

const list = await listTickets({ status, limit: 5 }, withKey);
expect(list.status === 200, `200 from listTickets, got ${list.status}`);
expect(Array.isArray(ListTicketsResponse.parse(list.data).tickets), 'a page of tickets');

const unauthorized = await listTickets();
expect(unauthorized.status === 401, `401 without a key, got ${unauthorized.status}`);
const noKey: { detail: string } = unauthorized.data;
expect(typeof noKey.detail === 'string', 'a string detail on 401');

expect(
  !CreateTicketBody.safeParse({ subject: '' }).success,
  'the zod body schema to refuse an empty subject',
);
const invalid = await createTicket({ subject: '' }, withKey);
expect(invalid.status === 422, `422 for an empty subject, got ${invalid.status}`);
const refusal: { detail: string | { loc: (string | number)[]; msg: string; type: string }[] } = invalid.data;
expect(
  Array.isArray(refusal.detail) && refusal.detail[0]?.loc.includes('subject'),
  'the issue names the field',
);

console.log('list, create, read, 401, 422');
