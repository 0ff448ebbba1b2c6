// openapi-typescript (types) with openapi-fetch (the client its authors pair it with).
import createClient from 'openapi-fetch';
import { API_KEY, BASE_URL, expect } from './expect.js';
import type { components, operations, paths } from './gen/schema.js';

type Ticket = components['schemas']['Ticket'];
type ValidationError = components['schemas']['ValidationError'];
type ErrorBody = components['schemas']['ErrorBody'];

const api = createClient<paths>({ baseUrl: BASE_URL, headers: { 'X-API-Key': API_KEY } });
const anonymous = createClient<paths>({ baseUrl: BASE_URL });

type ListQuery = NonNullable<operations['listTickets']['parameters']['query']>;
// an enum-list filter is a string (one value or a comma list), never a number
const status: ListQuery['status'] = 'open,new';
// @ts-expect-error a number is no status filter
const notStatus: ListQuery['status'] = 42;
void notStatus;

const created = await api.POST('/api/v1/tickets', { body: { subject: 'From openapi-typescript' } });
expect(
  created.response.status === 201 && created.data,
  `201 from POST /api/v1/tickets, got ${created.response.status}`,
);
const ticket: Ticket = created.data;

const read = await api.GET('/api/v1/tickets/{ticket_id}', { params: { path: { ticket_id: ticket.id } } });
expect(read.data?.id === ticket.id, 'the created ticket read back');

const list = await api.GET('/api/v1/tickets', { params: { query: { status, limit: 5 } } });
expect(
  list.data && Array.isArray(list.data.tickets) && typeof list.data.total === 'number',
  'a page of tickets',
);

const unauthorized = await anonymous.GET('/api/v1/tickets');
expect(
  unauthorized.response.status === 401 && unauthorized.error,
  `401 without a key, got ${unauthorized.response.status}`,
);
const noKey: ErrorBody | ValidationError = unauthorized.error;
expect(typeof noKey.detail === 'string', 'a string detail on 401');

const invalid = await api.POST('/api/v1/tickets', { body: { subject: '' } });
expect(
  invalid.response.status === 422 && invalid.error,
  `422 for an empty subject, got ${invalid.response.status}`,
);
const body: ErrorBody | ValidationError = invalid.error;
expect(Array.isArray(body.detail), 'a list of issues on 422');
const issues: ValidationError['detail'] = body.detail as ValidationError['detail'];
expect(issues[0]?.loc.includes('subject'), 'the issue names the field');

console.log('list, create, read, 401, 422');
