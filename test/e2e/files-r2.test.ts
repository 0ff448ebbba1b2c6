// Files on Workers: the files, tickets and calls functions in workerd on workerd's own local R2
// (the ATTACHMENTS binding, as wrangler.toml binds it). The bytes go to the bucket and come back
// byte for byte through the signed link; the cap refuses one byte over before anything is stored.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { bindings, bucketKeys, call, edgeTenant, edgeUrl } from './support';

const MAX = 26_214_400; // ATTACHMENT_MAX_BYTES' default: 25 MiB
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `size` bytes that differ from one position to the next (a dropped or moved chunk shows). */
function pattern(size: number, seed = 7): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

async function upload(path: string, body: BodyInit, headers: Record<string, string>) {
  const res = await fetch(`${edgeUrl()}${path}`, {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/**
 * Headers stating `size` bytes and no body sent: the refusal must come from Content-Length alone,
 * before any byte is read (a client that kept writing would meet the closed socket instead).
 */
function statedOnly(path: string, size: number, headers: Record<string, string>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(`${edgeUrl()}${path}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(size) },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

async function download(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { redirect: 'manual', headers });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe('files on workerd with its local R2', () => {
  it('an attachment goes to the bucket and its signed link serves the same bytes', async () => {
    const t = await edgeTenant();
    const key = await t.key(['tickets:read', 'tickets:write']);
    const ticket = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Files on R2' } });
    expect(ticket.status, ticket.text).toBe(201);
    const bytes = pattern(300_000);
    const up = await upload(
      `/api/v1/tickets/${ticket.body.id}/attachments?filename=${encodeURIComponent('scan ü.pdf')}`,
      bytes,
      {
        'X-API-Key': key,
        'Content-Type': 'application/pdf',
      },
    );
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ filename: 'scan ü.pdf', size: bytes.length, sha256: sha256(bytes) });
    // in the bucket under <tenant>/<attachment id>
    expect(await bucketKeys(`${t.id}/`)).toEqual([`${t.id}/${up.body.id}`]);
    expect(up.body.download_url.startsWith(`${bindings().PUBLIC_BASE_URL}/api/v1/files/`)).toBe(true);
    const got = await download(up.body.download_url);
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(bytes));
    expect(got.headers.get('content-type')).toBe('application/pdf');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    // one byte range, read from the bucket as a range
    const part = await download(up.body.download_url, { Range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(part.bytes).toEqual(bytes.subarray(1000, 2000));
    const tail = await download(up.body.download_url, { Range: 'bytes=-10' });
    expect(tail.bytes).toEqual(bytes.subarray(bytes.length - 10));
    expect((await download(up.body.download_url, { Range: `bytes=${bytes.length}-` })).status).toBe(416);
    // an HTML file is served as an octet-stream attachment
    const html = await upload(
      `/api/v1/tickets/${ticket.body.id}/attachments?filename=page.html`,
      '<script>1</script>',
      {
        'X-API-Key': key,
        'Content-Type': 'text/html',
      },
    );
    expect(html.status).toBe(201);
    const served = await download(html.body.download_url);
    expect(served.headers.get('content-type')).toBe('application/octet-stream');
    // a link with its signature changed is refused, and a deleted file's bytes leave the bucket
    const forged = new URL(up.body.download_url);
    forged.searchParams.set('signature', `${forged.searchParams.get('signature')?.slice(0, -2)}00`);
    expect((await download(forged.toString())).status).toBe(403);
    const del = await call('DELETE', `/api/v1/tickets/${ticket.body.id}/attachments/${up.body.id}`, {
      apiKey: key,
    });
    expect(del.status).toBe(204);
    expect(await bucketKeys(`${t.id}/${up.body.id}`)).toEqual([]);
    expect((await download(up.body.download_url)).status).toBe(404);
  });

  it('25 MiB is accepted and served back whole; one byte over is 413 and leaves the bucket unchanged', async () => {
    const t = await edgeTenant();
    const key = await t.key(['tickets:read', 'tickets:write']);
    const ticket = await call('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Big files' } });
    const path = `/api/v1/tickets/${ticket.body.id}/attachments?filename=big.bin`;
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/octet-stream' };
    const big = pattern(MAX, 11);
    const up = await upload(path, big, headers);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body).toMatchObject({ size: MAX, sha256: sha256(big) });
    const got = await download(up.body.download_url);
    expect(got.bytes.length).toBe(MAX);
    expect(sha256(got.bytes)).toBe(sha256(big));

    const before = await bucketKeys(`${t.id}/`);
    // stated: refused from Content-Length
    const over = await statedOnly(path, MAX + 1, headers);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ detail: 'Request body too large' });
    // unstated (chunked): counted as it streams, refused the moment it passes the cap
    let sent = 0;
    const chunk = new Uint8Array(64 * 1024).fill(5);
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent > MAX) return c.close();
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    const streamed = await upload(path, stream, headers);
    expect(streamed.status).toBe(413);
    expect(streamed.body).toEqual({ detail: 'Request body too large' });
    expect(await bucketKeys(`${t.id}/`)).toEqual(before);
    const list = await call('GET', `/api/v1/tickets/${ticket.body.id}/attachments`, { apiKey: key });
    expect(list.body.attachments.map((a: { id: string }) => a.id)).toEqual([up.body.id]);
  });

  it("a call's recording: stored in the bucket by the internal upload, served through the 302's link", async () => {
    const t = await edgeTenant();
    const key = await t.key(['calls:read']);
    const internal = { Authorization: `Bearer ${bindings().INTERNAL_API_TOKEN}` };
    const created = await call('POST', '/api/internal/calls', {
      headers: internal,
      body: { tenant_id: t.id },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const none = await call('GET', `/api/v1/calls/${id}/recording`, { apiKey: key });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ detail: 'Recording not found' });
    const audio = pattern(180_000, 3);
    const up = await upload(`/api/internal/calls/${id}/recording`, audio, {
      ...internal,
      'Content-Type': 'audio/wav',
    });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(await bucketKeys(`${t.id}/`)).toHaveLength(1);
    const redirect = await call('GET', `/api/v1/calls/${id}/recording`, { apiKey: key });
    expect(redirect.status).toBe(302);
    const got = await download(redirect.headers.get('location') as string);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('audio/wav');
    expect(sha256(got.bytes)).toBe(sha256(audio));
  });
});
