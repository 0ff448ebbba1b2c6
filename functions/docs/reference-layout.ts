/**
 * The /docs page around the parts rendered from the document (./reference-page.ts): the head with
 * the files' hashed addresses, the header, the sidebar and the server's address in the examples.
 * Kept apart from the Markdown rendering so the docs Worker, which embeds the parts rendered at
 * build time, builds the page without marked.
 */

/** What the examples show for the server until docs.js (or PUBLIC_BASE_URL) gives its address. */
export const BASE_URL_PLACEHOLDER = '$BASE_URL';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);

/** The page's content, as ./reference-page.ts renders it from one document (plain data: JSON as it is). */
export interface ReferencePageParts {
  title: string;
  version: string;
  /** the sidebar's entries */
  nav: string;
  /** the guide and every operation, with BASE_URL_PLACEHOLDER where the server's address goes */
  body: string;
}

export interface ReferencePageOptions {
  /** PUBLIC_BASE_URL when set: shown in the examples as is; else docs.js shows the page's origin */
  baseUrl?: string;
  /** addresses of the page's files, each with its content hash (cacheable for a year) */
  css: string;
  script: string;
}

/** The whole page. */
export function referenceLayout(parts: ReferencePageParts, options: ReferencePageOptions): string {
  const base = options.baseUrl ? escapeHtml(options.baseUrl.replace(/\/+$/, '')) : BASE_URL_PLACEHOLDER;
  const title = escapeHtml(parts.title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} reference</title>
<link rel="stylesheet" href="${options.css}">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
<script src="${options.script}" defer></script>
</head>
<body data-base-url="${options.baseUrl ? base : ''}">
<header><h1>${title} <span class="version">${escapeHtml(parts.version)}</span></h1>
<nav class="links"><a href="/api/v1/openapi.json">OpenAPI document (JSON)</a> <a href="/docs/try">Try requests (Swagger UI)</a></nav>
<input type="search" id="filter" placeholder="Search the guide and operations: path, method, summary or tag" aria-label="Search the guide and operations"></header>
<div class="layout"><nav class="tags" aria-label="Sections"><ul>${parts.nav}</ul></nav>
<main>${options.baseUrl ? parts.body.replaceAll(BASE_URL_PLACEHOLDER, base) : parts.body}</main></div>
</body>
</html>
`;
}
