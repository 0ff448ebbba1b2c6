// A local fake of the upstream ITSM knowledge-base API (KB destination `itsm`), on listen(0).
// POST /articles -> 201 {id, url}; `failWith` makes it answer that status instead.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeItsm {
  baseUrl: string;
  received: { auth: string | undefined; body: any }[];
  failWith: number | null;
  close(): Promise<void>;
}

export async function startFakeItsm(): Promise<FakeItsm> {
  let n = 0;
  const state = { received: [] as FakeItsm['received'], failWith: null as number | null };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/kb/articles') {
        res.writeHead(404).end();
        return;
      }
      state.received.push({ auth: req.headers.authorization, body: JSON.parse(raw || 'null') });
      if (state.failWith) {
        res.writeHead(state.failWith, { 'Content-Type': 'application/json' }).end('{"error":"down"}');
        return;
      }
      const id = `KB${++n}`;
      res
        .writeHead(201, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ id, url: `https://itsm.example/kb/${id}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}/kb`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
