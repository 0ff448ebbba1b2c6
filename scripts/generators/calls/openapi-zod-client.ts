// openapi-zod-client (schemas-only template): its zod schemas imported (a file that throws when
// loaded fails here) and every answer of the server parsed with them.

import { API_KEY, BASE_URL, expect } from './expect.js';
import { schemas } from './gen/schemas.js';

const headers = { 'X-API-Key': API_KEY, 'Content-Type': 'application/json' };
const call = async (method: string, path: string, body?: unknown, auth = true) => {
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: auth ? headers : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};

const created = await call(
  'POST',
  '/api/v1/tickets',
  schemas.TicketCreate.parse({ subject: 'From openapi-zod-client' }),
);
expect(created.status === 201, `201 from POST /api/v1/tickets, got ${created.status}`);
const ticket = schemas.Ticket.parse(created.body);

const read = await call('GET', `/api/v1/tickets/${ticket.id}`);
expect(schemas.Ticket.parse(read.body).id === ticket.id, 'the created ticket read back');

const list = await call('GET', '/api/v1/tickets?status=open,new&limit=5');
expect(list.status === 200, `200 from GET /api/v1/tickets, got ${list.status}`);
expect(schemas.TicketList.parse(list.body).tickets.length > 0, 'a page of tickets');

const unauthorized = await call('GET', '/api/v1/tickets', undefined, false);
expect(unauthorized.status === 401, `401 without a key, got ${unauthorized.status}`);
expect(typeof schemas.ErrorBody.parse(unauthorized.body).detail === 'string', 'a string detail on 401');

expect(
  !schemas.TicketCreate.safeParse({ subject: '' }).success,
  'the zod body schema to refuse an empty subject',
);
const invalid = await call('POST', '/api/v1/tickets', { subject: '' });
expect(invalid.status === 422, `422 for an empty subject, got ${invalid.status}`);
const issues = schemas.ValidationError.parse(invalid.body).detail;
expect(issues[0]?.loc.includes('subject'), 'the issue names the field');

console.log('list, create, read, 401, 422');
