/**
 * The attachments and recordings contract, run against one storage adapter on the embedded runtime
 * (files-folder.test.ts: a folder under DATA_DIR; files-s3.test.ts: a real S3 server). Every
 * refusal is checked to leave the storage as it was (`objects()`), not just to answer.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedLink } from '../../shared/files/links';
import { type Harness, startHarness, type TestTenant } from './harness';

export interface StorageUnderTest {
  env: Record<string, string>;
  /** every key the storage holds now */
  objects(): Promise<string[]>;
  close(): Promise<void>;
}

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const MAX = 64 * 1024;

/** The path and query of a link (the harness serves in-process, whatever the origin). */
const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

export function fileSuite(name: string, open: () => Promise<StorageUnderTest>) {
  describe(`files on ${name}`, () => {
    let s: StorageUnderTest;
    let h: Harness;
    let a: TestTenant;
    let b: TestTenant;
    let keyA: string;
    let keyB: string;
    beforeAll(async () => {
      s = await open();
      h = await startHarness({ ATTACHMENT_MAX_BYTES: String(MAX), ...s.env });
      a = await h.tenant({ name: 'A' });
      b = await h.tenant({ name: 'B' });
      const scopes = [
        'tickets:read',
        'tickets:write',
        'conversations:read',
        'conversations:write',
        'calls:read',
      ];
      keyA = await a.key(scopes);
      keyB = await b.key(scopes);
    }, 120_000);
    afterAll(async () => {
      await h?.close();
      await s?.close();
    }, 60_000);

    const newTicket = async (key = keyA) => {
      const res = await h.request('POST', '/api/v1/tickets', { apiKey: key, body: { subject: 'Files' } });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const newConversation = async (key = keyA) => {
      const res = await h.request('POST', '/api/v1/conversations', {
        apiKey: key,
        body: { channel: 'email' },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    /** a raw upload, as a client sends one: the bytes and their Content-Type (and -Length, unless a stream) */
    const upload = async (
      path: string,
      body: BodyInit | null,
      o: { key?: string; type?: string; filename?: string | null; headers?: Record<string, string> } = {},
    ) => {
      const q = o.filename === null ? '' : `?filename=${encodeURIComponent(o.filename ?? 'notes.txt')}`;
      // (an Authorization header in `headers` replaces the key: the internal surface refuses keys)
      const headers: Record<string, string> = o.headers?.Authorization
        ? { ...o.headers }
        : { 'X-API-Key': o.key ?? keyA, ...(o.headers ?? {}) };
      if (o.type) headers['Content-Type'] = o.type;
      if (body instanceof Uint8Array || typeof body === 'string')
        headers['Content-Length'] = String(
          typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
        );
      const res = await h.runtime.app.request(`${path}${q}`, {
        method: 'POST',
        headers,
        body,
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    };
    const download = async (url: string, headers: Record<string, string> = {}) => {
      const res = await h.runtime.app.request(local(url), { headers });
      return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
    };
    const attachmentRows = async (tenantId: string) =>
      h.db.selectFrom('attachments').selectAll().where('tenant_id', '=', tenantId).execute();

    it('upload, list, read, download the same bytes; delete removes record and bytes', async () => {
      const ticket = await newTicket();
      const bytes = new Uint8Array(40_000).map((_, i) => (i * 31) % 251);
      const up = await upload(`/api/v1/tickets/${ticket}/attachments`, bytes, {
        type: 'image/png',
        filename: 'scan é 1.png',
      });
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({
        filename: 'scan é 1.png',
        content_type: 'image/png',
        size: bytes.byteLength,
        sha256: sha256(bytes),
      });
      expect(up.body.id).toMatch(/^att_/);
      expect(new Date(up.body.download_url_expires_at).getTime()).toBeGreaterThan(Date.now() + 800_000);
      const list = await h.request('GET', `/api/v1/tickets/${ticket}/attachments`, { apiKey: keyA });
      expect(list.status).toBe(200);
      expect(list.body.attachments.map((x: { id: string }) => x.id)).toEqual([up.body.id]);
      const read = await h.request('GET', `/api/v1/tickets/${ticket}/attachments/${up.body.id}`, {
        apiKey: keyA,
      });
      expect(read.body).toMatchObject({ id: up.body.id, sha256: sha256(bytes) });
      const got = await download(read.body.download_url);
      expect(got.status).toBe(200);
      expect(sha256(got.bytes)).toBe(sha256(bytes));
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toBe(
        `attachment; filename="scan _ 1.png"; filename*=UTF-8''scan%20%C3%A9%201.png`,
      );
      // the record never holds the bytes; the storage holds them under the record's key
      const [row] = await attachmentRows(a.id);
      expect(Object.keys(row!)).not.toContain('content');
      expect(await s.objects()).toContain(row!.storage_key);

      const del = await h.request('DELETE', `/api/v1/tickets/${ticket}/attachments/${up.body.id}`, {
        apiKey: keyA,
      });
      expect(del.status).toBe(204);
      expect(await s.objects()).not.toContain(row!.storage_key);
      expect(await attachmentRows(a.id)).toHaveLength(0);
      expect((await download(read.body.download_url)).status).toBe(404);
    });

    it('one byte range: 206 with Content-Range from the storage itself; past the end 416; If-Range by the ETag', async () => {
      const ticket = await newTicket();
      const bytes = new Uint8Array(10_000).map((_, i) => (i * 7) % 253);
      const up = await upload(`/api/v1/tickets/${ticket}/attachments`, bytes, {
        type: 'audio/mpeg',
        filename: 'call.mp3',
      });
      expect(up.status).toBe(201);
      const url = up.body.download_url as string;
      const whole = await download(url);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      const etag = whole.headers.get('etag');
      expect(etag).toBe(`"${sha256(bytes)}"`);
      for (const [range, from, to] of [
        ['bytes=0-99', 0, 99],
        ['bytes=9000-', 9000, 9999],
        ['bytes=-250', 9750, 9999],
        ['bytes=5000-999999', 5000, 9999],
      ] as const) {
        const part = await download(url, { Range: range });
        expect(part.status, range).toBe(206);
        expect(part.headers.get('content-range')).toBe(`bytes ${from}-${to}/10000`);
        expect(part.headers.get('content-length')).toBe(String(to - from + 1));
        expect(part.bytes).toEqual(bytes.subarray(from, to + 1));
      }
      const past = await download(url, { Range: 'bytes=10000-' });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe('bytes */10000');
      expect(JSON.parse(new TextDecoder().decode(past.bytes))).toEqual({
        detail: 'Range not satisfiable: the file has 10000 bytes',
      });
      // a resumed download of the same bytes gets its range; of other bytes, the whole file
      expect((await download(url, { Range: 'bytes=10-19', 'If-Range': etag! })).status).toBe(206);
      const changed = await download(url, { Range: 'bytes=10-19', 'If-Range': '"other"' });
      expect(changed.status).toBe(200);
      expect(changed.bytes).toEqual(bytes);
      // several ranges: the whole file, as the RFC allows
      expect((await download(url, { Range: 'bytes=0-1,5-6' })).status).toBe(200);
    });

    it('HTML and SVG are served as octet-stream attachments with nosniff', async () => {
      const ticket = await newTicket();
      for (const [type, name, body] of [
        ['text/html', 'page.html', '<script>alert(1)</script>'],
        ['image/svg+xml', 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
      ] as const) {
        const up = await upload(`/api/v1/tickets/${ticket}/attachments`, body, { type, filename: name });
        expect(up.status).toBe(201);
        expect(up.body.content_type).toBe(type);
        const got = await download(up.body.download_url);
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe('application/octet-stream');
        expect(got.headers.get('content-disposition')).toMatch(/^attachment; /);
        expect(got.headers.get('x-content-type-options')).toBe('nosniff');
        expect(new TextDecoder().decode(got.bytes)).toBe(body);
      }
    });

    it('refusals: missing or bad filename and empty body 422, unknown and other-tenant ids 404; nothing stored', async () => {
      const ticket = await newTicket();
      const before = await s.objects();
      const path = `/api/v1/tickets/${ticket}/attachments`;
      const missing = await upload(path, 'x', { filename: null });
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0].loc).toEqual(['query', 'filename']);
      expect((await upload(path, 'x', { filename: '../etc/passwd' })).status).toBe(422);
      // shown as "invoiceexe.pdf", saved as an .exe; and a C1 control
      for (const filename of ['invoice\u202Efdp.exe', 'a\u2067b.txt', 'a\u0085b.txt']) {
        const refused = await upload(path, 'x', { filename });
        expect(refused.status, filename).toBe(422);
        expect(refused.body.detail[0]).toMatchObject({ loc: ['query', 'filename'], type: 'value_error' });
      }
      const empty = await upload(path, new Uint8Array(0));
      expect(empty.status).toBe(422);
      expect(empty.body.detail[0].loc).toEqual(['body']);
      // a form's envelope is not the file (what curl -F sends)
      const form = await upload(
        path,
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhi\r\n--x--\r\n',
        { type: 'multipart/form-data; boundary=x' },
      );
      expect(form.status).toBe(422);
      expect(form.body.detail[0].loc).toEqual(['header', 'content-type']);
      const emptyStream = new ReadableStream({ start: (c) => c.close() });
      expect((await upload(path, emptyStream)).status).toBe(422);
      expect((await upload('/api/v1/tickets/tkt_nope/attachments', 'x')).body).toEqual({
        detail: 'Ticket not found',
      });
      const theirs = await upload(path, 'x', { key: keyB });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual({ detail: 'Ticket not found' });
      expect(await s.objects()).toEqual(before);
      expect(await attachmentRows(b.id)).toHaveLength(0);
      // another tenant's attachment, by its id under their own ticket or ours
      const mine = await upload(path, 'mine');
      const otherTicket = await newTicket(keyB);
      for (const p of [`/api/v1/tickets/${ticket}`, `/api/v1/tickets/${otherTicket}`]) {
        const r = await h.request('GET', `${p}/attachments/${mine.body.id}`, { apiKey: keyB });
        expect(r.status).toBe(404);
        const d = await h.request('DELETE', `${p}/attachments/${mine.body.id}`, { apiKey: keyB });
        expect(d.status).toBe(404);
      }
      expect((await h.request('GET', `/api/v1/tickets/${ticket}/attachments`, { apiKey: keyB })).status).toBe(
        404,
      );
    });

    it('over ATTACHMENT_MAX_BYTES: 413 before anything is stored, stated or streamed', async () => {
      const ticket = await newTicket();
      const path = `/api/v1/tickets/${ticket}/attachments`;
      const before = await s.objects();
      const stated = await upload(path, new Uint8Array(MAX + 1));
      expect(stated.status).toBe(413);
      // no Content-Length: counted as it streams, refused once past the cap
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent > MAX * 2) return c.close();
          sent += 8192;
          c.enqueue(new Uint8Array(8192));
        },
      });
      const streamed = await upload(path, stream);
      expect(streamed.status).toBe(413);
      expect(streamed.body).toEqual({ detail: 'Request body too large' });
      expect(await s.objects()).toEqual(before);
      expect(await attachmentRows(a.id).then((r) => r.filter((x) => x.owner_id === ticket))).toHaveLength(0);
    });

    it('a compressed upload (Content-Encoding: gzip) is 415, not stored compressed', async () => {
      const ticket = await newTicket();
      const before = await s.objects();
      const res = await upload(`/api/v1/tickets/${ticket}/attachments`, gzipSync('the notes'), {
        headers: { 'Content-Encoding': 'gzip' },
      });
      expect(res.status).toBe(415);
      expect(res.headers.get('accept-encoding')).toBe('identity');
      expect(res.body).toEqual({ detail: 'Content-Encoding is not supported: send the body uncompressed' });
      expect(await s.objects()).toEqual(before);
      expect(await attachmentRows(a.id).then((r) => r.filter((x) => x.owner_id === ticket))).toHaveLength(0);
    });

    it('an upload cut off midway leaves no bytes and no record', async () => {
      const ticket = await newTicket();
      const before = await s.objects();
      let n = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (n++ < 3) c.enqueue(new Uint8Array(4096).fill(7));
          else c.error(new Error('connection reset'));
        },
      });
      const res = await upload(`/api/v1/tickets/${ticket}/attachments`, stream, {
        headers: { 'Content-Length': String(MAX) },
      });
      expect(res.status).toBe(400);
      expect(await s.objects()).toEqual(before);
      const rows = await attachmentRows(a.id);
      expect(rows.filter((r) => r.owner_id === ticket)).toHaveLength(0);
    });

    it('a link expires (403) and a forged one is refused (403)', async () => {
      const ticket = await newTicket();
      const up = await upload(`/api/v1/tickets/${ticket}/attachments`, 'expiring');
      const key = h.runtime.services.files!.signingKey;
      const old = await signedLink(
        key,
        'http://x',
        { id: up.body.id, tenant_id: a.id },
        900,
        Date.now() - 901_000,
      );
      const expired = await download(old.url);
      expect(expired.status).toBe(403);
      const forged = up.body.download_url.replace(
        /signature=([0-9a-f])/,
        (_: string, d: string) => `signature=${d === '0' ? '1' : '0'}`,
      );
      expect((await download(forged)).status).toBe(403);
      // the tenant is signed: the same id under another tenant's name is refused
      expect((await download(up.body.download_url.replace(a.id, b.id))).status).toBe(403);
      expect((await download(up.body.download_url)).status).toBe(200);
    });

    it('the per-plan storage cap: 413 naming the cap, nothing stored', async () => {
      const free = await h.tenant({ plan: 'free', name: 'Free' });
      const key = await free.key(['tickets:write', 'tickets:read']);
      const ticket = await newTicket(key);
      // 100 MiB already kept (a record alone: the cap counts records)
      await h.db
        .insertInto('attachments')
        .values({
          id: 'att_cap_filler',
          tenant_id: free.id,
          owner_type: 'ticket',
          owner_id: ticket,
          filename: 'big.bin',
          content_type: 'application/octet-stream',
          size: 100 * 1024 * 1024 - 10,
          sha256: '0'.repeat(64),
          storage_key: `${free.id}/att_cap_filler`,
        })
        .execute();
      const before = await s.objects();
      const res = await upload(`/api/v1/tickets/${ticket}/attachments`, 'more than ten bytes', { key });
      expect(res.status).toBe(413);
      expect(res.body.detail).toBe('Storage limit reached: the free plan keeps at most 100 MiB of files');
      expect(await s.objects()).toEqual(before);
      expect((await upload(`/api/v1/tickets/${ticket}/attachments`, 'tiny', { key })).status).toBe(201);
    });

    /** a body that sends its first bytes and then nothing, until it is cancelled (`cancelled` says so) */
    const stalled = (first: Uint8Array) => {
      const sender = { cancelled: false, stream: null as unknown as ReadableStream<Uint8Array> };
      sender.stream = new ReadableStream<Uint8Array>({
        start: (c) => c.enqueue(first),
        cancel: () => {
          sender.cancelled = true;
        },
      });
      return sender;
    };

    it('the checks run beside the write: their refusal cancels it, stops the sender and stores nothing', async () => {
      const ticket = await newTicket();
      const free = await h.tenant({ plan: 'free', name: 'Free stalled' });
      const freeKey = await free.key(['tickets:write', 'tickets:read']);
      const freeTicket = await newTicket(freeKey);
      await h.db
        .insertInto('attachments')
        .values({
          id: 'att_stalled_filler',
          tenant_id: free.id,
          owner_type: 'ticket',
          owner_id: freeTicket,
          filename: 'big.bin',
          content_type: 'application/octet-stream',
          size: 100 * 1024 * 1024 - 10,
          sha256: '0'.repeat(64),
          storage_key: `${free.id}/att_stalled_filler`,
        })
        .execute();
      const before = await s.objects();
      // another tenant's ticket, stated and streamed: 404 although the bytes never end
      for (const headers of [{ 'Content-Length': String(MAX) }, {}] as Record<string, string>[]) {
        const sender = stalled(new Uint8Array(4096).fill(3));
        const theirs = await upload(`/api/v1/tickets/${ticket}/attachments`, sender.stream, {
          key: keyB,
          headers,
        });
        expect(theirs.status).toBe(404);
        expect(theirs.body).toEqual({ detail: 'Ticket not found' });
        expect(sender.cancelled).toBe(true);
      }
      // the plan's cap, by the stated length
      const sender = stalled(new TextEncoder().encode('more than'));
      const capped = await upload(`/api/v1/tickets/${freeTicket}/attachments`, sender.stream, {
        key: freeKey,
        headers: { 'Content-Length': '20' },
      });
      expect(capped.status).toBe(413);
      expect(capped.body.detail).toBe('Storage limit reached: the free plan keeps at most 100 MiB of files');
      expect(sender.cancelled).toBe(true);
      expect(await s.objects()).toEqual(before);
      expect(await attachmentRows(b.id).then((r) => r.filter((x) => x.owner_id === ticket))).toHaveLength(0);
      expect(await attachmentRows(free.id)).toHaveLength(1);
    });

    it('a file stored whole before the checks answer is taken back by their refusal', async () => {
      const ticket = await newTicket();
      // warm B's credential and plan, so that only the upload's own checks wait for the lock below
      expect((await h.request('GET', `/api/v1/tickets/${ticket}/attachments`, { apiKey: keyB })).status).toBe(
        404,
      );
      const before = await s.objects();
      let release!: () => void;
      const released = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => {
        locked = r;
      });
      // the checks read `tenants`: held, they answer only once the bytes are in storage
      const holder = h.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE tenants IN ACCESS EXCLUSIVE MODE`.execute(trx);
        locked();
        await released;
      });
      await isLocked;
      const answer = upload(`/api/v1/tickets/${ticket}/attachments`, 'stored before the checks', {
        key: keyB,
      });
      let stored: string[] = before;
      const theirKey = (keys: string[]) => keys.some((k) => k.startsWith(`${b.id}/`));
      for (let i = 0; i < 2000 && !theirKey(stored); i++) {
        await new Promise((r) => setTimeout(r, 5));
        stored = await s.objects();
      }
      expect(stored.filter((k) => k.startsWith(`${b.id}/`))).toHaveLength(1);
      release();
      await holder;
      const theirs = await answer;
      expect(theirs.status).toBe(404);
      expect(await s.objects()).toEqual(before);
    });

    it('replies carry attachment_ids: in the reply, its list and ticket.replied; others 422 at the field', async () => {
      const ticket = await newTicket();
      const other = await newTicket();
      const f1 = await upload(`/api/v1/tickets/${ticket}/attachments`, 'one', { filename: 'one.txt' });
      const f2 = await upload(`/api/v1/tickets/${other}/attachments`, 'two', { filename: 'two.txt' });
      const wrong = await h.request('POST', `/api/v1/tickets/${ticket}/replies`, {
        apiKey: keyA,
        body: { body: 'see attached', attachment_ids: [f1.body.id, f2.body.id] },
      });
      expect(wrong.status).toBe(422);
      expect(wrong.body.detail[0].loc).toEqual(['body', 'attachment_ids', 1]);
      const replyCount = await h.db
        .selectFrom('ticket_replies')
        .select('id')
        .where('ticket_id', '=', ticket)
        .execute();
      expect(replyCount).toHaveLength(0);
      const reply = await h.request('POST', `/api/v1/tickets/${ticket}/replies`, {
        apiKey: keyA,
        body: { body: 'see attached', attachment_ids: [f1.body.id] },
      });
      expect(reply.status).toBe(201);
      const meta = {
        id: f1.body.id,
        filename: 'one.txt',
        // (a string body goes with fetch's own Content-Type)
        content_type: 'text/plain',
        size: 3,
        sha256: sha256('one'),
        created_at: f1.body.created_at,
      };
      expect(reply.body.attachments).toEqual([meta]);
      const list = await h.request('GET', `/api/v1/tickets/${ticket}/replies`, { apiKey: keyA });
      expect(list.body.replies[0].attachments).toEqual([meta]);
      const events = await h.db
        .selectFrom('events')
        .select('payload')
        .where('tenant_id', '=', a.id)
        .where('event_type', '=', 'ticket.replied')
        .where(sql<string>`payload->'ticket'->>'id'`, '=', ticket)
        .execute();
      const payload = events.map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload));
      expect(payload[0].reply.attachments).toEqual([meta]);
      // sent once: a second reply cannot take it again
      const again = await h.request('POST', `/api/v1/tickets/${ticket}/replies`, {
        apiKey: keyA,
        body: { body: 'again', attachment_ids: [f1.body.id] },
      });
      expect(again.status).toBe(422);
    });

    it('messages carry attachment_ids: in the message, its list, message.sent and the export', async () => {
      const cnv = await newConversation();
      const f = await upload(`/api/v1/conversations/${cnv}/attachments`, 'invoice bytes', {
        type: 'application/pdf',
        filename: 'invoice.pdf',
      });
      expect(f.status).toBe(201);
      const msg = await h.request('POST', `/api/v1/conversations/${cnv}/messages`, {
        apiKey: keyA,
        body: { body: 'Your invoice', attachment_ids: [f.body.id] },
      });
      expect(msg.status).toBe(201);
      expect(msg.body.attachments.map((x: { filename: string }) => x.filename)).toEqual(['invoice.pdf']);
      const list = await h.request('GET', `/api/v1/conversations/${cnv}/messages`, { apiKey: keyA });
      expect(list.body.messages.at(-1).attachments[0]).toMatchObject({ id: f.body.id, size: 13 });
      const sent = await h.db
        .selectFrom('events')
        .select('payload')
        .where('tenant_id', '=', a.id)
        .where('event_type', '=', 'message.sent')
        .where(sql<string>`payload->'conversation'->>'id'`, '=', cnv)
        .execute();
      const data = sent.map((e) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload));
      expect(data[0].message.attachments).toEqual([
        expect.objectContaining({ id: f.body.id, filename: 'invoice.pdf', size: 13 }),
      ]);
      expect(data[0].message.attachments[0]).not.toHaveProperty('download_url');
      const exportKey = await a.key(['conversations:export', 'conversations:read', 'conversations:write']);
      for (const format of ['json', 'text'] as const) {
        const ex = await h.request('POST', `/api/v1/conversations/${cnv}/export`, {
          apiKey: exportKey,
          body: { format },
        });
        expect(ex.status).toBe(201);
        const file = await h.request('GET', new URL(ex.body.download_url, 'http://x').pathname, {
          apiKey: exportKey,
        });
        expect(file.text).toContain('invoice.pdf');
        expect(file.text).toContain(format === 'json' ? '"size": 13' : 'invoice.pdf (13 bytes)');
      }
      // another conversation's file: 422 at the field
      const other = await newConversation();
      const bad = await h.request('POST', `/api/v1/conversations/${other}/messages`, {
        apiKey: keyA,
        body: { body: 'x', attachment_ids: [f.body.id] },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'attachment_ids', 0]);
    });

    it('a recording: internal upload, then a 302 to a link that downloads it; 404 without one', async () => {
      const internal = { Authorization: `Bearer ${h.config.INTERNAL_API_TOKEN}` };
      const call = await h.request('POST', '/api/internal/calls', {
        headers: internal,
        body: { tenant_id: a.id },
      });
      expect(call.status).toBe(201);
      const id = call.body.id as string;
      const none = await h.request('GET', `/api/v1/calls/${id}/recording`, { apiKey: keyA });
      expect(none.status).toBe(404);
      expect(none.body).toEqual({ detail: 'Recording not found' });
      const notAudio = await upload(`/api/internal/calls/${id}/recording`, 'x', {
        filename: null,
        type: 'text/plain',
        headers: internal,
      });
      expect(notAudio.status).toBe(422);
      const audio = new Uint8Array(30_000).map((_, i) => i % 256);
      const up = await upload(`/api/internal/calls/${id}/recording`, audio, {
        filename: null,
        type: 'audio/wav',
        headers: internal,
      });
      expect(up.status).toBe(201);
      const res = await h.runtime.app.request(`/api/v1/calls/${id}/recording`, {
        headers: { 'X-API-Key': keyA },
      });
      expect(res.status).toBe(302);
      const got = await download(res.headers.get('location')!);
      expect(got.status).toBe(200);
      expect(sha256(got.bytes)).toBe(sha256(audio));
      expect(got.headers.get('content-type')).toBe('audio/wav');
      const theirs = await h.request('GET', `/api/v1/calls/${id}/recording`, { apiKey: keyB });
      expect(theirs.status).toBe(404);
      const read = await h.request('GET', `/api/v1/calls/${id}`, { apiKey: keyA });
      // the storage path the voice agent reports, untouched by the upload
      expect(read.body.recording_url).toBeNull();
    });
  });
}
