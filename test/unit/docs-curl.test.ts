// The curl examples of /docs run as copied: no `{param}` left in a URL (curl reads braces as a glob),
// the required query parameters present, an Idempotency-Key of its own on every operation that reads
// one, and the credential each operation takes.
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import { renderReferencePage } from '../../functions/docs/reference-page';

const doc = openApiDocument('public') as any;
const html = renderReferencePage(doc, { css: '/a.css', script: '/a.js' });
const fromHtml = (s: string) =>
  s
    .replace(/<[^>]+>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/** operationId -> its curl command as a reader copies it */
const curls = new Map<string, string>();
for (const m of html.matchAll(
  /<details class="op" id="([^"]+)"[\s\S]*?<pre class="curl"><code>([\s\S]*?)<\/code><\/pre>/g,
))
  curls.set(m[1]!, fromHtml(m[2]!));
const operations = Object.values<any>(doc.paths).flatMap((item) =>
  Object.values<any>(item).filter((op) => op?.operationId),
);

describe('/docs curl examples', () => {
  it('one per operation', () => {
    expect(operations.length).toBeGreaterThan(100);
    for (const op of operations) expect(curls.has(op.operationId), op.operationId).toBe(true);
  });

  it('no URL keeps a path template or needs quoting beyond its double quotes', () => {
    const wrong: string[] = [];
    for (const [id, curl] of curls) {
      const url = curl.match(/^curl -X [A-Z]+ "([^"]*)"/)?.[1];
      if (!url) wrong.push(`${id}: no URL`);
      else if (/[{}[\]\s$`\\]/.test(url.replace(/^\$BASE_URL/, ''))) wrong.push(`${id}: ${url}`);
    }
    expect(wrong).toEqual([]);
  });

  it('fills path parameters with their examples and sends the required query parameters', () => {
    const update = curls.get('updateTicket')!;
    expect(update).toContain('/api/v1/tickets/tkt_');
    expect(update).not.toContain('{ticket_id}');
    const missing: string[] = [];
    for (const op of operations)
      for (const p of op.parameters ?? [])
        if (p.in === 'query' && p.required && !curls.get(op.operationId)!.includes(`${p.name}=`))
          missing.push(`${op.operationId} ${p.name}`);
    expect(missing).toEqual([]);
  });

  it('sends an Idempotency-Key of its own wherever the operation reads one', () => {
    expect(curls.get('createTicket')).toMatch(/-H "Idempotency-Key: [!-~]+"/);
    const keys = new Map<string, string>();
    for (const op of operations) {
      const reads = (op.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      const key = curls.get(op.operationId)!.match(/-H "Idempotency-Key: ([^"]+)"/)?.[1];
      expect(Boolean(key), op.operationId).toBe(reads);
      if (key) {
        expect(keys.get(key), `${op.operationId} reuses the key of`).toBeUndefined();
        keys.set(key, op.operationId);
      }
    }
    expect(keys.size).toBeGreaterThan(10);
  });

  it('names the credential the operation takes', () => {
    expect(curls.get('createTicket')).toContain('-H "X-API-Key: $API_KEY"');
    expect(curls.get('listContacts')).toContain('-H "Authorization: Bearer $TOKEN"');
    expect(curls.get('getHealth')).not.toContain('-H');
  });
});
