// swagger-typescript-api: its Api class and types against the running server (a non-2xx answer
// rejects with the response, its `error` typed by the operation's error responses).

import { API_KEY, BASE_URL, expect } from './expect.js';
import { Api, type ErrorBody, type HttpResponse, type Ticket, type ValidationError } from './gen/api.js';

const api = new Api({ baseUrl: BASE_URL, baseApiParams: { headers: { 'X-API-Key': API_KEY } } });
const anonymous = new Api({ baseUrl: BASE_URL });

type ListQuery = NonNullable<Parameters<typeof api.api.listTickets>[0]>;
// an enum-list filter is a string (one value or a comma list), never a number
const status: ListQuery['status'] = 'open,new';
// @ts-expect-error a number is no status filter
const notStatus: ListQuery['status'] = 42;
void notStatus;

/** The rejected response of a call that must fail. */
async function refused<T, E>(call: Promise<HttpResponse<T, E>>): Promise<HttpResponse<T, E>> {
  try {
    const res = await call;
    throw new Error(`expected a refusal, got ${res.status}`);
  } catch (e) {
    if (e instanceof Error) throw e;
    return e as HttpResponse<T, E>;
  }
}

const created = await api.api.createTicket({ subject: 'From swagger-typescript-api' });
expect(created.status === 201, `201 from createTicket, got ${created.status}`);
const ticket: Ticket = created.data;

const read = await api.api.getTicket(ticket.id);
expect(read.data.id === ticket.id, 'the created ticket read back');

const list = await api.api.listTickets({ status, limit: 5 });
expect(Array.isArray(list.data.tickets) && typeof list.data.total === 'number', 'a page of tickets');

const unauthorized = await refused(anonymous.api.listTickets());
expect(unauthorized.status === 401, `401 without a key, got ${unauthorized.status}`);
const noKey: ErrorBody | ValidationError = unauthorized.error;
expect(typeof noKey.detail === 'string', 'a string detail on 401');

const invalid = await refused(api.api.createTicket({ subject: '' }));
expect(invalid.status === 422, `422 for an empty subject, got ${invalid.status}`);
const body: ErrorBody | ValidationError = invalid.error;
expect(Array.isArray(body.detail), 'a list of issues on 422');
const issues: ValidationError['detail'] = body.detail as ValidationError['detail'];
expect(issues[0]?.loc.includes('subject'), 'the issue names the field');

console.log('list, create, read, 401, 422');
