// Local fake upstream helpdesks for the contact-sync tests: one node:http server (listen(0))
// speaking both providers' paged APIs, with scriptable contents and failures.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeUser {
  id: string;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  phone?: string | null;
  mobile?: string | null;
  company?: string | null;
  active?: boolean;
  /** ISO; used for updated_since / modified_since filtering */
  updated_at?: string;
}

export interface FakeHelpdesk {
  baseUrl: string;
  /** provider A's users (served at /a/api/users) */
  a: FakeUser[];
  /** provider B's contacts (served at /b/contacts), same shape, mapped to B's field names */
  b: FakeUser[];
  pageSize: number;
  /** page number (1-based) -> HTTP status to answer instead, per provider; `'garbage'` sends non-JSON */
  failures: { a: Map<number, number | 'garbage'>; b: Map<number, number | 'garbage'> };
  /** every request path + query seen, in order */
  requests: { path: string; auth: string | undefined }[];
  tokens: { a: string; b: string };
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startFakeHelpdesk(): Promise<FakeHelpdesk> {
  const state: Omit<FakeHelpdesk, 'baseUrl' | 'close'> = {
    a: [],
    b: [],
    pageSize: 2,
    failures: { a: new Map(), b: new Map() },
    requests: [],
    tokens: { a: 'token-a', b: 'token-b' },
  };

  const since = (list: FakeUser[], value: string | null) =>
    value ? list.filter((u) => (u.updated_at ?? '1970-01-01T00:00:00Z') >= value) : list;

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname.startsWith('/a/')) {
      state.requests.push({ path: `${url.pathname}${url.search}`, auth: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${state.tokens.a}`)
        return send(res, 401, { error: 'unauthorized' });
      if (url.pathname !== '/a/api/users') return send(res, 404, { error: 'not found' });
      const page = Number(url.searchParams.get('page') ?? '1');
      const failure = state.failures.a.get(page);
      if (failure === 'garbage') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end('{not json');
      }
      if (failure) return send(res, failure, { error: 'boom' });
      const all = since(state.a, url.searchParams.get('updated_since'));
      const start = (page - 1) * state.pageSize;
      const users = all.slice(start, start + state.pageSize).map(({ updated_at: _u, ...u }) => u);
      return send(res, 200, { users, next_page: start + state.pageSize < all.length ? page + 1 : null });
    }
    if (url.pathname.startsWith('/b/')) {
      state.requests.push({ path: `${url.pathname}${url.search}`, auth: req.headers['x-api-key'] as string });
      if (req.headers['x-api-key'] !== state.tokens.b) return send(res, 401, { error: 'unauthorized' });
      if (url.pathname !== '/b/contacts') return send(res, 404, { error: 'not found' });
      const cursor = url.searchParams.get('cursor');
      const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
      const page = start / state.pageSize + 1;
      const failure = state.failures.b.get(page);
      if (failure === 'garbage') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end('<html>');
      }
      if (failure) return send(res, failure, { error: 'boom' });
      const all = since(state.b, url.searchParams.get('modified_since'));
      const data = all.slice(start, start + state.pageSize).map((u) => ({
        contact_id: u.id,
        given_name: u.first_name ?? null,
        family_name: u.last_name ?? null,
        email_address: u.email ?? null,
        phone_number: u.phone ?? null,
        mobile_number: u.mobile ?? null,
        organization: u.company ? { name: u.company } : null,
        status: u.active === false ? 'archived' : 'active',
      }));
      const next =
        start + state.pageSize < all.length
          ? Buffer.from(String(start + state.pageSize)).toString('base64url')
          : null;
      return send(res, 200, { data, meta: { next_cursor: next } });
    }
    send(res, 404, { error: 'not found' });
  };

  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
