// The typed client's upload helper (clients/typescript) against the embedded runtime: a Blob and a
// stream of bytes, each stored byte for byte; a refusal thrown as SupportApiError.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSupportClient, type SupportClient } from '../../clients/typescript/index';
import { type Harness, postgresUnavailable, startHarness } from '../support/harness';

describe.skipIf(postgresUnavailable())('typed client: upload', () => {
  let h: Harness;
  let dir: string;
  let client: SupportClient;
  let ticket: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'files-client-'));
    h = await startHarness({ DATA_DIR: dir });
    const t = await h.tenant();
    const apiKey = await t.key(['tickets:read', 'tickets:write']);
    client = createSupportClient({
      baseUrl: 'http://api.test',
      apiKey,
      retry: false,
      fetch: (request) => Promise.resolve(h.runtime.app.fetch(request)),
    });
    const { data } = await client.POST('/api/v1/tickets', { body: { subject: 'Client uploads' } });
    ticket = data!.id;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a Blob and a stream are stored byte for byte; a refusal throws', async () => {
    const blob = new Blob(['hello from a blob'], { type: 'text/plain' });
    const a = await client.upload(`/api/v1/tickets/${ticket}/attachments`, blob, { filename: 'blob.txt' });
    expect(a).toMatchObject({ filename: 'blob.txt', content_type: 'text/plain', size: 17 });
    const bytes = new Uint8Array(300_000).map((_, i) => i % 253);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= bytes.byteLength) return c.close();
        c.enqueue(bytes.slice(at, at + 65_536));
        at += 65_536;
      },
    });
    const b = await client.upload(`/api/v1/tickets/${ticket}/attachments`, stream, {
      filename: 'stream.bin',
      size: bytes.byteLength,
    });
    expect(b.size).toBe(bytes.byteLength);
    expect(b.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const u = new URL(b.download_url);
    const got = await h.runtime.app.request(`${u.pathname}${u.search}`);
    expect(
      createHash('sha256')
        .update(new Uint8Array(await got.arrayBuffer()))
        .digest('hex'),
    ).toBe(b.sha256);
    await expect(
      client.upload(`/api/v1/tickets/${ticket}/attachments`, blob, { filename: '' }),
    ).rejects.toMatchObject({ status: 422 });
  });
});
