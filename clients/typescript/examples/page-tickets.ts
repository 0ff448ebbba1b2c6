import { createSupportClient } from '..';

const api = createSupportClient({
  baseUrl: process.env.API_URL ?? 'http://127.0.0.1:8787',
  apiKey: process.env.API_KEY,
});
const open = api.paginate('/api/v1/tickets', { params: { query: { status: 'open', limit: 100 } } });
for await (const ticket of open) {
  console.log(ticket.id, ticket.priority, ticket.subject);
}
