// Files on Workers: every function's bundle in workerd with its own local R2 bound as ATTACHMENTS
// (scripts/edge/stack.ts), uploads streamed into the bucket, downloads streamed out of it.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedLink } from '../../shared/files/links';
import { bindings, call, edgeTenant, edgeUrl } from './support';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
/** a link's path and query on the stack (PUBLIC_BASE_URL names another port) */
const onStack = (url: string) => {
  const u = new URL(url);
  return `${edgeUrl()}${u.pathname}${u.search}`;
};

describe('files on workerd with R2', () => {
  let key: string;
  let tenantId: string;
  let ticket: string;
  beforeAll(async () => {
    const t = await edgeTenant();
    tenantId = t.id;
    key = await t.key(['tickets:read', 'tickets:write', 'calls:read']);
    const created = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Files on R2' } });
    ticket = created.body.id;
  });

  const upload = async (body: BodyInit, type: string, filename: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${edgeUrl()}/api/v1/tickets/${ticket}/attachments?filename=${encodeURIComponent(filename)}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': type, ...headers },
      body,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  };
  const listed = async () =>
    (await call('GET', `/api/v1/tickets/${ticket}/attachments`, { apiKey: key })).body.attachments as {
      id: string;
    }[];

  it('upload, read, download the same bytes from R2; delete removes them', async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const up = await upload(bytes, 'application/pdf', 'report.pdf');
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ size: bytes.byteLength, sha256: sha256(bytes), content_type: 'application/pdf' });
    const res = await fetch(onStack(up.body.download_url));
    expect(res.status).toBe(200);
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(bytes));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const del = await call('DELETE', `/api/v1/tickets/${ticket}/attachments/${up.body.id}`, { apiKey: key });
    expect(del.status).toBe(204);
    expect((await fetch(onStack(up.body.download_url))).status).toBe(404);
  });

  it('HTML and SVG come back as octet-stream attachments', async () => {
    for (const [type, name] of [
      ['text/html', 'x.html'],
      ['image/svg+xml', 'x.svg'],
    ]) {
      const up = await upload('<svg onload="alert(1)"/>', type!, name!);
      expect(up.status).toBe(201);
      const res = await fetch(onStack(up.body.download_url));
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; /);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe('<svg onload="alert(1)"/>');
    }
  });

  it('an expired link is 403', async () => {
    const up = await upload('soon gone', 'text/plain', 'a.txt');
    const signingKey = `file-links\u0000${bindings().API_KEY_HASH_SECRET}`;
    const old = await signedLink(signingKey, edgeUrl(), { id: up.body.id, tenant_id: tenantId }, 900, Date.now() - 1_000_000);
    const res = await fetch(old.url);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ detail: 'Download link expired' });
  });

  it('413 over ATTACHMENT_MAX_BYTES, stated or streamed: no record', async () => {
    const before = (await listed()).length;
    const big = await upload(new Uint8Array(26_214_401), 'application/octet-stream', 'big.bin');
    expect(big.status).toBe(413);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > 27_000_000) return c.close();
        sent += 1 << 20;
        c.enqueue(new Uint8Array(1 << 20));
      },
    });
    const streamed = await upload(stream, 'application/octet-stream', 'big.bin').catch(() => ({ status: 413 }));
    expect(streamed.status).toBe(413);
    expect((await listed()).length).toBe(before);
  });

  it('an upload cut off midway leaves no record', async () => {
    const before = (await listed()).length;
    const url = new URL(`${edgeUrl()}/api/v1/tickets/${ticket}/attachments?filename=cut.bin`);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nX-API-Key: ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n`,
        );
        socket.write(Buffer.alloc(200_000, 1), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 500));
    expect((await listed()).length).toBe(before);
  });

  it('a recording: internal upload into R2, then a 302 to a link that downloads it', async () => {
    const internal = { Authorization: `Bearer ${bindings().INTERNAL_API_TOKEN}` };
    const created = await call('POST', '/api/internal/calls', { headers: internal, body: { tenant_id: tenantId } });
    expect(created.status).toBe(201);
    const audio = new Uint8Array(50_000).map((_, i) => i % 199);
    const up = await fetch(`${edgeUrl()}/api/internal/calls/${created.body.id}/recording`, {
      method: 'POST',
      headers: { ...internal, 'Content-Type': 'audio/mpeg' },
      body: audio,
    });
    expect(up.status).toBe(201);
    const res = await call('GET', `/api/v1/calls/${created.body.id}/recording`, { apiKey: key });
    expect(res.status).toBe(302);
    const got = await fetch(onStack(res.headers.get('location')!));
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(audio));
  });
});
