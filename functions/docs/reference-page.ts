/**
 * The /docs page: the public OpenAPI document rendered on the server into plain HTML, one closed
 * `<details>` per operation and webhook. A browser shows the first operation as soon as the HTML
 * arrives: no script has to load, parse the document and build the page first (Swagger UI, Redoc
 * and Scalar each took 10 s or more here for this document; see docs/reference.md). The page's
 * one script (docs.js) only filters by the search box and shows the server's address in the
 * examples. Swagger UI stays at /docs/try for sending requests from the browser.
 *
 * The descriptions are the document's own Markdown (our text, never a caller's), rendered by marked.
 * What depends on the document alone is rendered here (`referencePageParts`); the page around it,
 * which depends on the server's address and the files' hashes, is ./reference-layout.ts. The docs
 * Worker embeds the parts rendered at build time, so it neither carries nor evaluates marked.
 */
import { marked } from 'marked';
import type { OpenApiDocument } from '../../shared/http/openapi-doc';
import {
  BASE_URL_PLACEHOLDER,
  escapeHtml,
  type ReferencePageOptions,
  type ReferencePageParts,
  referenceLayout,
} from './reference-layout';

export { BASE_URL_PLACEHOLDER, escapeHtml };

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Text between tags needs only `&` and `<` escaped (and `>` for readers): JSON's quotes stay as they are. */
const escapeText = (text: string) => text.replace(/[&<>]/g, (ch) => ESCAPE_TEXT[ch]!);
const ESCAPE_TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
const md = (text: unknown) =>
  typeof text === 'string' ? (marked.parse(text, { async: false }) as string) : '';
const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `{$ref: '#/components/x/Name'}` -> the component (one level: what a reader needs beside it). */
function deref(doc: Json, value: unknown): Json {
  if (!isObject(value) || typeof value.$ref !== 'string') return isObject(value) ? value : {};
  let node: unknown = doc;
  for (const part of value.$ref.replace(/^#\//, '').split('/'))
    node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? node : {};
}

/** A schema in a few words: `Ticket`, `string (date-time)`, `"open" | "closed"`, `Tag[]`. */
function typeOf(schema: unknown): string {
  if (!isObject(schema)) return 'any';
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop()!;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches)) return branches.map(typeOf).join(' | ');
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type as string | undefined);
  if (type === 'array') return `${typeOf(schema.items)}[]`;
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  return `${type ?? 'any'}${format}`;
}

/** The first example of a media type: `example`, else the first of `examples`. */
function exampleOf(media: Json): unknown {
  if ('example' in media) return media.example;
  const first = isObject(media.examples) ? Object.values(media.examples)[0] : undefined;
  return isObject(first) ? first.value : undefined;
}

/** An example as JSON: a short one on one line (most error bodies), a longer one indented. */
function pre(value: unknown): string {
  if (value === undefined) return '';
  const line = JSON.stringify(value);
  return line.length <= 100
    ? ` <code class="example">${escapeText(line)}</code>`
    : `<pre><code>${escapeText(JSON.stringify(value, null, 2))}</code></pre>`;
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '';
  const th = head.map((h) => `<th>${h}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

function parametersOf(doc: Json, op: Json): string {
  const params = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => deref(doc, p));
  const rows = params.map((p) => [
    `<code>${escapeHtml(String(p.name))}</code>${p.required ? ' <span class="req">required</span>' : ''}`,
    escapeHtml(String(p.in)),
    `<code>${escapeHtml(typeOf(p.schema))}</code>`,
    md(p.description),
  ]);
  return rows.length ? `<h4>Parameters</h4>${table(['Name', 'In', 'Type', 'Description'], rows)}` : '';
}

/** A body's fields (its schema's own properties, one level) and its example. */
function bodyOf(doc: Json, media: Json): string {
  const schema = deref(doc, media.schema);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const props = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  const rows = props.map(([name, s]) => [
    `<code>${escapeHtml(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}`,
    `<code>${escapeHtml(typeOf(s))}</code>`,
    md(isObject(s) ? s.description : undefined),
  ]);
  return `${table(['Field', 'Type', 'Description'], rows)}${pre(exampleOf(media))}`;
}

function requestBodyOf(doc: Json, op: Json): string {
  const body = deref(doc, op.requestBody);
  const content = isObject(body.content) ? Object.entries(body.content) : [];
  return content
    .map(
      ([type, media]) =>
        `<h4>Request body <code>${escapeHtml(type)}</code>${body.required ? '' : ' (optional)'}</h4>${bodyOf(doc, media as Json)}`,
    )
    .join('');
}

/** A response as one list item: status, description, example. */
function responseItem(status: string, res: Json, id = ''): string {
  const json = isObject(res.content) ? (res.content['application/json'] as Json | undefined) : undefined;
  return `<li${id ? ` id="${id}"` : ''}><span class="status s${status[0]}">${escapeHtml(status)}</span> ${md(res.description)}${
    json ? pre(exampleOf(json)) : ''
  }</li>`;
}

const responsesOfOp = (doc: Json, op: Json) =>
  Object.entries(isObject(op.responses) ? op.responses : {}).map(([status, r]) => {
    const res = deref(doc, r);
    return { status, res, key: `${status} ${JSON.stringify(res)}` };
  });

/**
 * Error answers that many operations share word for word (401, 409, 413, 429, 503…): listed once,
 * in "Common errors", and linked from each operation, instead of repeated 100 times in the page.
 */
function commonErrors(doc: Json, operations: Json[]): Map<string, { id: string; html: string }> {
  const counts = new Map<string, number>();
  for (const op of operations)
    for (const { status, key } of responsesOfOp(doc, op))
      if (Number(status) >= 400) counts.set(key, (counts.get(key) ?? 0) + 1);
  const common = new Map<string, { id: string; html: string }>();
  for (const op of operations)
    for (const { status, res, key } of responsesOfOp(doc, op))
      if ((counts.get(key) ?? 0) >= 3 && !common.has(key)) {
        const id = `error-${status}-${common.size + 1}`;
        common.set(key, { id, html: responseItem(status, res, id) });
      }
  return common;
}

function responsesOf(doc: Json, op: Json, common: Map<string, { id: string }>): string {
  const own: string[] = [];
  const shared: string[] = [];
  for (const { status, res, key } of responsesOfOp(doc, op)) {
    const listed = common.get(key);
    if (listed) shared.push(`<a class="status s${status[0]}" href="#${listed.id}">${escapeHtml(status)}</a>`);
    else own.push(responseItem(status, res));
  }
  if (shared.length) own.push(`<li>Common errors: ${shared.join(' ')}</li>`);
  return own.length ? `<h4>Responses</h4><ul class="responses">${own.join('')}</ul>` : '';
}

/** A parameter's example as it goes in a URL (percent-encoded: nothing a shell or curl reads in it). */
const urlValue = (p: Json) => encodeURIComponent(String(p.example));

/**
 * A curl command for the operation that runs as copied: path parameters filled with their examples
 * (a literal `{ticket_id}` is a glob to curl), the required query parameters, the credential it
 * takes, an `Idempotency-Key` where the operation reads one, and its example body.
 */
function curlOf(doc: Json, method: string, path: string, op: Json): string {
  const security = Array.isArray(op.security) ? op.security.flatMap((s) => Object.keys(s as Json)) : [];
  const params = (Array.isArray(op.parameters) ? op.parameters : []).map((p) => deref(doc, p));
  const named = (where: string) => params.filter((p) => p.in === where && p.example !== undefined);
  let url = path;
  for (const p of named('path')) url = url.replaceAll(`{${String(p.name)}}`, urlValue(p));
  const query = named('query')
    .filter((p) => p.required)
    .map((p) => `${encodeURIComponent(String(p.name))}=${urlValue(p)}`)
    .join('&');
  if (query) url += `?${query}`;
  const lines = [
    `curl -X ${method.toUpperCase()} "<span class="base-url">${BASE_URL_PLACEHOLDER}</span>${escapeHtml(url)}"`,
  ];
  if (security.includes('ApiKeyHeader')) lines.push('  -H "X-API-Key: $API_KEY"');
  else if (security.includes('BearerAuth')) lines.push('  -H "Authorization: Bearer $TOKEN"');
  else if (security.includes('EndUserToken')) lines.push('  -H "Authorization: Bearer $END_USER_TOKEN"');
  for (const p of named('header')) {
    const name = String(p.name);
    // a key of its own per operation: two examples copied one after the other are two requests,
    // and one key for both would be a 422 (a key names one request)
    const idempotency = name.toLowerCase() === 'idempotency-key';
    if (!p.required && !idempotency) continue;
    const value = idempotency
      ? `${String(op.operationId ?? method)}-${String(p.example)}`
      : String(p.example);
    lines.push(`  -H "${escapeHtml(name)}: ${escapeHtml(value.replace(/["$`\\]/g, '\\$&'))}"`);
  }
  const content = deref(doc, op.requestBody).content;
  const json = isObject(content) ? (content['application/json'] as Json | undefined) : undefined;
  const example = json ? exampleOf(json) : undefined;
  if (example !== undefined)
    lines.push(
      '  -H "Content-Type: application/json"',
      `  -d '${escapeText(JSON.stringify(example).replaceAll("'", "'\\''"))}'`,
    );
  else if (isObject(content) && isObject(content['application/octet-stream'])) {
    // a raw upload: the file named by the `filename` example, from the current directory
    const file = named('query').find((p) => p.name === 'filename')?.example ?? 'file';
    lines.push(
      '  -H "Content-Type: application/octet-stream"',
      `  --data-binary "@${escapeHtml(String(file))}"`,
    );
  }
  return `<h4>Example</h4><pre class="curl"><code>${lines.join(' \\\n')}</code></pre>`;
}

function operationHtml(
  doc: Json,
  common: Map<string, { id: string }>,
  method: string,
  path: string,
  op: Json,
  tag: string,
): string {
  const id = typeof op.operationId === 'string' ? op.operationId : slug(`${method} ${path}`);
  const search = escapeHtml(`${method} ${path} ${op.summary ?? ''} ${tag}`.toLowerCase());
  return `<details class="op" id="${escapeHtml(id)}" data-search="${search}"><summary><span class="m m-${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code> <span class="summary">${escapeHtml(String(op.summary ?? ''))}</span>${op.deprecated ? ' <span class="deprecated">deprecated</span>' : ''}</summary><div class="body">${md(op.description)}${parametersOf(doc, op)}${requestBodyOf(doc, op)}${responsesOf(doc, op, common)}${curlOf(doc, method, path, op)}</div></details>`;
}

function webhookHtml(doc: Json, name: string, op: Json): string {
  const body = deref(doc, op.requestBody);
  const json = isObject(body.content) ? (body.content['application/json'] as Json | undefined) : undefined;
  const search = escapeHtml(`webhook ${name} ${op.summary ?? ''}`.toLowerCase());
  return `<details class="op" id="webhook-${escapeHtml(slug(name))}" data-search="${search}"><summary><span class="m m-event">EVENT</span> <code class="path">${escapeHtml(name)}</code> <span class="summary">${escapeHtml(String(op.summary ?? ''))}</span></summary><div class="body">${md(op.description)}${json ? `<h4>Payload</h4>${bodyOf(doc, json)}` : ''}</div></details>`;
}

/** The document's operations grouped by their first tag, in the document's tag order. */
function byTag(doc: Json, common: Map<string, { id: string }>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const t of Array.isArray(doc.tags) ? (doc.tags as Json[]) : []) groups.set(String(t.name), []);
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {}))
    for (const method of METHODS) {
      const op = isObject(item) ? item[method] : undefined;
      if (!isObject(op)) continue;
      const tag = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : 'Other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push(operationHtml(doc, common, method, path, op, tag));
    }
  const hooks = Object.entries(isObject(doc.webhooks) ? doc.webhooks : {});
  for (const [name, item] of hooks) {
    const op = isObject(item) ? item.post : undefined;
    if (!isObject(op)) continue;
    const tag = Array.isArray(op.tags) && op.tags.length ? String(op.tags[0]) : 'Webhooks';
    if (!groups.has(tag)) groups.set(tag, []);
    groups.get(tag)!.push(webhookHtml(doc, name, op));
  }
  for (const [tag, ops] of groups) if (ops.length === 0) groups.delete(tag);
  return groups;
}

/**
 * The guide (`info.description`) cut at its `## ` headings: what comes before the first, then one
 * section per heading, each with an anchor (`#authentication`, `#rate-limits`) and a sidebar entry.
 */
function guideSections(markdown: string): {
  preamble: string;
  sections: { id: string; title: string; html: string }[];
} {
  const [preamble = '', ...parts] = markdown.split(/^## /m);
  const sections = parts.map((part) => {
    const newline = part.indexOf('\n');
    const title = (newline < 0 ? part : part.slice(0, newline)).trim();
    return {
      id: slug(title).replace(/^-|-$/g, ''),
      title,
      html: md(newline < 0 ? '' : part.slice(newline + 1)),
    };
  });
  return { preamble: md(preamble), sections };
}

/** What the page shows of one document, rendered from its Markdown: everything but the page around it. */
export function referencePageParts(document: OpenApiDocument): ReferencePageParts {
  const doc = document as unknown as Json;
  const info = isObject(doc.info) ? doc.info : {};
  const tagInfo = new Map(
    (Array.isArray(doc.tags) ? (doc.tags as Json[]) : []).map((t) => [String(t.name), t]),
  );
  const operations = Object.values(isObject(doc.paths) ? doc.paths : {}).flatMap((item) =>
    METHODS.map((m) => (isObject(item) ? item[m] : undefined)).filter(isObject),
  );
  const common = commonErrors(doc, operations);
  const groups = byTag(doc, common);
  if (common.size > 0)
    groups.set('Common errors', [
      `<p>The error answers many operations share, listed once; each operation links here.</p><ul class="responses">${[
        ...common.values(),
      ]
        .map((e) => e.html)
        .join('')}</ul>`,
    ]);
  const guide = guideSections(typeof info.description === 'string' ? info.description : '');
  const nav = [
    ...guide.sections.map((g) => `<li class="guide"><a href="#${g.id}">${escapeHtml(g.title)}</a></li>`),
    ...[...groups.keys()].map((tag) => `<li><a href="#tag-${slug(tag)}">${escapeHtml(tag)}</a></li>`),
  ].join('');
  const sections = [...groups]
    // Element Timing on the first operation: the browser records when it is painted
    // (test/browser/docs-page.test.ts holds that under 2 s)
    .map(
      ([tag, ops], i) =>
        [
          tag,
          i === 0
            ? [
                ops[0]!.replace('<code class="path">', '<code class="path" elementtiming="first-operation">'),
                ...ops.slice(1),
              ]
            : ops,
        ] as const,
    )
    .map(
      ([tag, ops]) =>
        `<section class="tag" id="tag-${slug(tag)}"><h2>${escapeHtml(tag)}</h2>${md(tagInfo.get(tag)?.description)}${ops.join('')}</section>`,
    )
    .join('');
  const intro = `<div class="preamble">${guide.preamble}</div>${guide.sections
    .map((g) => `<section class="prose" id="${g.id}"><h2>${escapeHtml(g.title)}</h2>${g.html}</section>`)
    .join('')}`;
  // the intro's examples name the server as the curl lines do
  const withBase = (html: string) =>
    html.replaceAll(BASE_URL_PLACEHOLDER, `<span class="base-url">${BASE_URL_PLACEHOLDER}</span>`);
  return {
    title: String(info.title ?? 'API'),
    version: String(info.version ?? ''),
    nav,
    body: `<section class="intro">${withBase(intro)}</section>${sections}<p id="no-match" hidden>Nothing in the guide or the operations matches “<span></span>”.</p>`,
  };
}

/** The whole page for one document. */
export const renderReferencePage = (document: OpenApiDocument, options: ReferencePageOptions): string =>
  referenceLayout(referencePageParts(document), options);
