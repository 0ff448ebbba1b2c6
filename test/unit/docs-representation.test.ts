// The compressed, cacheable answers of /docs, its files and the OpenAPI document
// (shared/http/representation.ts), and the reference page's rendering (functions/docs/reference-page.ts).
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/document';
import { BASE_URL_PLACEHOLDER, renderReferencePage } from '../../functions/docs/reference-page';
import { chooseEncoding, representation, sendRepresentation } from '../../shared/http/representation';

const request = (headers: Record<string, string>) => new Request('http://x/docs', { headers });

describe('sendRepresentation', () => {
  it.each([
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1, br;q=0', 'gzip'],
    ['*', 'gzip'],
    ['identity', null],
    ['', null],
  ] as const)('Accept-Encoding %j -> %s', (header, expected) => {
    expect(chooseEncoding(header)).toBe(expected);
  });

  it('compresses per Accept-Encoding, names the encoding and varies on it', async () => {
    const text = 'A reference page. '.repeat(2000);
    const rep = await representation(text, 'text/html; charset=utf-8');
    const decoders = { br: brotliDecompressSync, gzip: gunzipSync };
    for (const encoding of ['br', 'gzip'] as const) {
      const res = sendRepresentation(request({ 'accept-encoding': encoding }), rep, 'public, max-age=300');
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBeLessThan(text.length / 20);
      expect(decoders[encoding](bytes).toString()).toBe(text);
    }
    const plain = sendRepresentation(request({}), rep, 'public, max-age=300');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(text);
  });

  it('answers 304 to its ETag, 200 to another', async () => {
    const rep = await representation('body', 'text/plain');
    expect(rep.etag).toBe(`"${rep.hash}"`);
    const hit = sendRepresentation(request({ 'if-none-match': `"other", ${rep.etag}` }), rep, 'no-cache');
    expect(hit.status).toBe(304);
    expect(hit.headers.get('etag')).toBe(rep.etag);
    expect(await hit.text()).toBe('');
    expect(sendRepresentation(request({ 'if-none-match': '"other"' }), rep, 'no-cache').status).toBe(200);
    expect((await representation('body2', 'text/plain')).etag).not.toBe(rep.etag);
  });
});

describe('the reference page', () => {
  const files = { css: '/docs/assets/docs.css?v=1', script: '/docs/assets/docs.js?v=2' };

  it('renders every operation and webhook of the document, the intro first', () => {
    const doc = openApiDocument('public');
    const html = renderReferencePage(doc, files);
    const operations = Object.values(doc.paths).flatMap((item) =>
      Object.keys(item as object).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)),
    ).length;
    const webhooks = Object.keys(doc.webhooks ?? {}).length;
    expect(html.match(/<details class="op"/g)?.length).toBe(operations + webhooks);
    expect(html.indexOf('class="intro"')).toBeLessThan(html.indexOf('<details'));
    expect(html).toContain('id="createTicket"');
    expect(html).not.toContain('api.example.com');
  });

  it('without PUBLIC_BASE_URL the examples wait for the page origin (docs.js); with it they show it', () => {
    const doc = openApiDocument('public');
    const relative = renderReferencePage(doc, files);
    expect(relative).toContain('data-base-url=""');
    expect(relative).toContain(
      `curl -X POST "<span class="base-url">${BASE_URL_PLACEHOLDER}</span>/api/v1/tickets"`,
    );
    const fixed = renderReferencePage(doc, { ...files, baseUrl: 'https://support.example.com/' });
    expect(fixed).toContain('data-base-url="https://support.example.com"');
    expect(fixed).toContain(
      'curl -X POST "<span class="base-url">https://support.example.com</span>/api/v1/tickets"',
    );
    expect(fixed).not.toContain(BASE_URL_PLACEHOLDER);
  });
});
