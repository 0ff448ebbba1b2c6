/**
 * Files that arrive inside an inbound channel message (email, WhatsApp): base64 in the JSON,
 * stored through the folder adapter, attached to the message they came with, and shown in its
 * read, its `message.received` and the export. Every refusal is checked to leave no message, no
 * record and no bytes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsFor } from '../support/events';
import {
  type Harness,
  postgresUnavailable,
  startHarness,
  TEST_SECRETS,
  type TestTenant,
} from '../support/harness';

const MAX = 64 * 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const bytesOf = (n: number, seed = 7) => new Uint8Array(n).map((_, i) => (i * seed) % 251);
const internal = { bearer: TEST_SECRETS.INTERNAL_API_TOKEN };

function walk(root: string, dir = root, out: string[] = []): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(root, path, out);
    else out.push(relative(root, path));
  }
  return out.sort();
}

describe.skipIf(postgresUnavailable())('files in inbound channel messages', () => {
  let dir: string;
  let h: Harness;
  let t: TestTenant;
  let key: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'files-inbound-'));
    // a small JSON cap: a message with a file is let through past it, up to one file at the cap
    h = await startHarness({ DATA_DIR: dir, ATTACHMENT_MAX_BYTES: String(MAX), MAX_BODY_BYTES: '4096' });
    t = await h.tenant();
    key = await t.key(['conversations:read', 'conversations:write', 'conversations:export']);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const objects = () => walk(join(dir, 'files'));
  const email = (body: Record<string, unknown>) =>
    h.request('POST', '/api/internal/channels/email', { ...internal, body: { tenant_id: t.id, ...body } });
  const whatsapp = (body: Record<string, unknown>) =>
    h.request('POST', '/api/internal/channels/whatsapp', { ...internal, body: { tenant_id: t.id, ...body } });
  /** what a refusal must leave as it was */
  const state = async (tenantId = t.id) => ({
    objects: await objects(),
    messages: (await h.db.selectFrom('messages').select('id').where('tenant_id', '=', tenantId).execute())
      .length,
    attachments: (
      await h.db.selectFrom('attachments').select('id').where('tenant_id', '=', tenantId).execute()
    ).length,
  });

  it('an email with two files: stored, attached, in the read, message.received, the export and downloadable', async () => {
    const invoice = bytesOf(40_000);
    const note = new TextEncoder().encode('Order 1042\n');
    const res = await email({
      from: 'ana@example.com',
      subject: 'Invoice',
      body: 'Please find the invoice attached.',
      attachments: [
        { filename: 'invoice 1042.pdf', content_type: 'application/pdf', content_base64: b64(invoice) },
        { filename: 'note.txt', content_type: 'text/plain; charset=utf-8', content_base64: b64(note) },
      ],
    });
    expect(res.status).toBe(201);
    const cid = res.body.conversation_id as string;
    const meta = [
      {
        filename: 'invoice 1042.pdf',
        content_type: 'application/pdf',
        size: invoice.byteLength,
        sha256: sha256(invoice),
      },
      { filename: 'note.txt', content_type: 'text/plain', size: note.byteLength, sha256: sha256(note) },
    ];
    expect(res.body.message.attachments).toMatchObject(meta);
    const ids = res.body.message.attachments.map((a: { id: string }) => a.id);
    // the bytes in storage under the tenant, the records in Postgres, sent with the message
    expect(await objects()).toEqual(expect.arrayContaining(ids.map((id: string) => `${t.id}/${id}`)));
    const rows = await h.db.selectFrom('attachments').selectAll().where('id', 'in', ids).execute();
    expect(rows.map((r) => r.attached_to)).toEqual([res.body.message.id, res.body.message.id]);

    const list = await h.request('GET', `/api/v1/conversations/${cid}/messages`, { apiKey: key });
    expect(list.body.messages[0].attachments).toMatchObject(meta);

    const [received] = await eventsFor(h, t.id, 'message.received', cid);
    expect(received.message.attachments).toMatchObject(meta);
    // metadata only: no link, no bytes
    expect(JSON.stringify(received)).not.toContain('download_url');
    expect(JSON.stringify(received)).not.toContain(b64(note));

    const read = await h.request('GET', `/api/v1/conversations/${cid}/attachments/${ids[0]}`, {
      apiKey: key,
    });
    expect(read.status).toBe(200);
    const link = new URL(read.body.download_url);
    const got = await h.runtime.app.request(`${link.pathname}${link.search}`);
    expect(got.status).toBe(200);
    expect(sha256(new Uint8Array(await got.arrayBuffer()))).toBe(sha256(invoice));

    const exp = await h.request('POST', `/api/v1/conversations/${cid}/export`, {
      apiKey: key,
      body: { format: 'text' },
    });
    expect(exp.status).toBe(201);
    const text = await h.request('GET', `/api/v1/conversations/${cid}/exports/${exp.body.id}/download`, {
      apiKey: key,
    });
    expect(text.text).toContain('invoice 1042.pdf');
    expect(text.text).toContain('note.txt');
  });

  it('a WhatsApp document: attached; no content_type stores it as application/octet-stream', async () => {
    const doc = bytesOf(5_000, 13);
    const res = await whatsapp({
      from: '+1 555 010 2030',
      body: 'my receipt',
      attachments: [{ filename: 'receipt.jpg', content_base64: b64(doc) }],
    });
    expect(res.status).toBe(201);
    expect(res.body.message.attachments).toMatchObject([
      { filename: 'receipt.jpg', content_type: 'application/octet-stream', size: 5_000, sha256: sha256(doc) },
    ]);
    const [received] = await eventsFor(h, t.id, 'message.received', res.body.conversation_id);
    expect(received.message.attachments).toHaveLength(1);
  });

  it('a message without files is as before: attachments []', async () => {
    const res = await email({ from: 'plain@example.com', body: 'no files' });
    expect(res.status).toBe(201);
    expect(res.body.message.attachments).toEqual([]);
  });

  it('a file at the cap passes MAX_BODY_BYTES (the body is let through); one over it is 413 with nothing stored', async () => {
    const atCap = bytesOf(MAX);
    const ok = await email({
      from: 'big@example.com',
      body: 'at the cap',
      attachments: [{ filename: 'cap.bin', content_base64: b64(atCap) }],
    });
    expect(ok.status).toBe(201);
    expect(ok.body.message.attachments[0]).toMatchObject({ size: MAX, sha256: sha256(atCap) });
    // the same body is still too large on a route without files (the JSON cap holds there)
    const widget = await h.request('POST', '/api/v1/widget/messages', {
      body: { tenant_id: t.id, email: 'big@example.com', body: 'x'.repeat(5000) },
    });
    expect(widget.status).toBe(413);

    const before = await state();
    const over = await email({
      from: 'big@example.com',
      body: 'one good, one over the cap',
      attachments: [
        { filename: 'small.txt', content_base64: b64(bytesOf(100)) },
        { filename: 'over.bin', content_base64: b64(bytesOf(MAX + 1)) },
      ],
    });
    expect(over.status).toBe(413);
    expect(over.body.detail).toContain('attachments[1]');
    expect(await state()).toEqual(before);
  });

  it('refusals leave no message, no record and no bytes: empty file, bad base64, bad name, unknown thread, unknown tenant', async () => {
    const before = await state();
    const good = { filename: 'a.txt', content_base64: b64(bytesOf(300)) };
    const empty = await email({
      from: 'r@example.com',
      body: 'x',
      attachments: [good, { filename: 'e.txt', content_base64: '' }],
    });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0].loc).toEqual(['body', 'attachments', 1, 'content_base64']);

    const bad = await email({
      from: 'r@example.com',
      body: 'x',
      attachments: [{ filename: 'b.txt', content_base64: 'not base64!' }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'attachments', 0, 'content_base64']);

    const name = await email({
      from: 'r@example.com',
      body: 'x',
      attachments: [{ filename: '../x', content_base64: good.content_base64 }],
    });
    expect(name.status).toBe(422);
    expect(name.body.detail[0].loc).toEqual(['body', 'attachments', 0, 'filename']);

    // the files are stored before the message's transaction, which then refuses: their bytes go too
    const thread = await email({
      from: 'r@example.com',
      body: 'x',
      conversation_id: 'cnv_doesnotexist00000000',
      attachments: [good],
    });
    expect(thread.status).toBe(404);

    const tenant = await h.request('POST', '/api/internal/channels/email', {
      ...internal,
      body: { tenant_id: 'ten_nope', from: 'r@example.com', body: 'x', attachments: [good] },
    });
    expect(tenant.status).toBe(404);
    expect(await state()).toEqual(before);
  });

  it("past the plan's storage cap: 413 naming the cap, nothing written", async () => {
    const free = await h.tenant({ plan: 'free' });
    // fill the free plan's 100 MiB but 1000 bytes with a record (the cap reads the records' sizes)
    await h.db
      .insertInto('attachments')
      .values({
        id: 'att_filler_inbound',
        tenant_id: free.id,
        owner_type: 'call',
        owner_id: 'call_none',
        filename: 'filler',
        content_type: 'application/octet-stream',
        size: 100 * 1024 * 1024 - 1000,
        sha256: 'x',
        storage_key: `${free.id}/att_filler_inbound`,
      })
      .execute();
    const before = await state(free.id);
    const res = await h.request('POST', '/api/internal/channels/whatsapp', {
      ...internal,
      body: {
        tenant_id: free.id,
        from: '+15550000001',
        body: 'two files, together over the cap',
        attachments: [
          { filename: 'a.bin', content_base64: b64(bytesOf(600)) },
          { filename: 'b.bin', content_base64: b64(bytesOf(600)) },
        ],
      },
    });
    expect(res.status).toBe(413);
    expect(res.body.detail).toBe('Storage limit reached: the free plan keeps at most 100 MiB of files');
    expect(await state(free.id)).toEqual(before);
  });
});
