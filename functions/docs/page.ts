/**
 * /docs/try: Swagger UI over /api/v1/openapi.json, every script from /docs/assets (no CDN, no
 * inline script: the page's Content-Security-Policy runs only same-origin files).
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Support Platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
  <style>body { margin: 0; } .swagger-ui .topbar { display: none; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs-init.js"></script>
</body>
</html>
`;

/** Swagger UI's start-up, served as /docs/assets/docs-init.js (inline script would break the CSP). */
export const DOCS_INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  persistAuthorization: false,
  // a search box filtering the operations by tag (the document has ~30 tags)
  filter: true,
  validatorUrl: null,
});
`;

/**
 * The script of /docs (served as /docs/assets/docs.js, deferred: the page is readable before it
 * runs). It shows the server's address in the examples (PUBLIC_BASE_URL when the page carries it,
 * else the page's own origin), filters the guide's sections and the operations by the search box
 * (a line says when nothing matches), keeps anchors clear of the sticky header (its height, which
 * wraps on a phone, sets scroll-margin-top), and opens the operation a link points at.
 */
export const REFERENCE_SCRIPT = `(() => {
  const base = document.body.dataset.baseUrl || location.origin;
  for (const el of document.querySelectorAll('.base-url')) el.textContent = base;
  const header = document.querySelector('body > header');
  const fit = () => document.documentElement.style.setProperty('--header-h', header.offsetHeight + 'px');
  fit();
  addEventListener('resize', fit);
  const input = document.getElementById('filter');
  const ops = [...document.querySelectorAll('details.op')];
  const sections = [...document.querySelectorAll('section.tag')];
  const prose = [...document.querySelectorAll('section.prose')].map((el) => ({ el, text: el.textContent.toLowerCase() }));
  const preamble = document.querySelector('main .preamble');
  const noMatch = document.getElementById('no-match');
  input.addEventListener('input', () => {
    const words = input.value.trim().toLowerCase().split(/\\s+/).filter(Boolean);
    const matches = (text) => words.every((w) => text.includes(w));
    for (const op of ops) op.hidden = !matches(op.dataset.search);
    for (const s of sections) s.hidden = words.length > 0 && !s.querySelector('details.op:not([hidden])');
    for (const p of prose) p.el.hidden = words.length > 0 && !matches(p.text);
    preamble?.toggleAttribute('hidden', words.length > 0);
    const none = words.length > 0 && ops.every((o) => o.hidden) && prose.every((p) => p.el.hidden);
    noMatch.hidden = !none;
    noMatch.querySelector('span').textContent = input.value.trim();
  });
  const openLinked = () => {
    const el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!el) return;
    if (el instanceof HTMLDetailsElement) el.open = true;
    el.scrollIntoView();
  };
  addEventListener('hashchange', openLinked);
  openLinked();
})();
`;

/** The stylesheet of /docs (/docs/assets/docs.css). */
export const REFERENCE_CSS = `*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff}
header{position:sticky;top:0;z-index:1;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;padding:.6rem 1.25rem;background:#f6f8fa;border-bottom:1px solid #d0d7de}
header h1{font-size:1.15rem;margin:0}
.version{font-weight:400;color:#59636e;font-size:.9rem}
.links{display:flex;gap:1rem}
#filter{flex:1 1 18rem;max-width:32rem;padding:.4rem .6rem;font:inherit;border:1px solid #d0d7de;border-radius:6px}
.layout{display:flex;align-items:flex-start}
nav.tags{position:sticky;top:var(--header-h,3.2rem);flex:0 0 15rem;max-height:calc(100vh - var(--header-h,3.2rem));overflow:auto;padding:1rem;font-size:.9rem}
nav.tags ul{list-style:none;margin:0;padding:0}
nav.tags li{margin:.15rem 0}
nav.tags li.guide+li:not(.guide){margin-top:.8rem}
/* an anchor lands below the sticky header (docs.js sets its height), not under it */
[id]{scroll-margin-top:calc(var(--header-h,3.5rem) + .5rem)}
#no-match{color:#59636e;font-style:italic}
main{flex:1;min-width:0;padding:1rem 1.5rem 4rem;max-width:72rem}
a{color:#0969da}
/* sections off screen are laid out only when scrolled to: the first operation shows sooner */
section.tag+section.tag{content-visibility:auto;contain-intrinsic-size:auto 40rem}
h2{margin:2rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid #d0d7de}
h4{margin:1rem 0 .25rem}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:.6rem .8rem;overflow:auto;font-size:.85rem;line-height:1.4}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
td p{margin:0}
details.op{border:1px solid #d0d7de;border-radius:6px;margin:.4rem 0;background:#fff}
details.op>summary{cursor:pointer;padding:.45rem .7rem;display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}
details.op[open]>summary{border-bottom:1px solid #d0d7de;background:#f6f8fa}
details.op .body{padding:.25rem 1rem 1rem}
.m{display:inline-block;min-width:4.2rem;text-align:center;font:600 .75rem/1.6 ui-monospace,monospace;color:#fff;border-radius:4px;padding:0 .3rem}
.m-get{background:#0969da}.m-post{background:#1a7f37}.m-put{background:#9a6700}.m-patch{background:#8250df}.m-delete{background:#cf222e}.m-event{background:#59636e}
.path{font-weight:600}
.summary{color:#59636e}
.req,.deprecated{font-size:.75rem;color:#cf222e}
.deprecated{border:1px solid #cf222e;border-radius:4px;padding:0 .3rem}
ul.responses{list-style:none;padding:0}
ul.responses>li{margin:.4rem 0}
ul.responses p{display:inline;margin:0}
.status{font:600 .85rem ui-monospace,monospace;padding:0 .35rem;border-radius:4px;background:#eaeef2}
.s2{background:#dafbe1}.s4{background:#ffebe9}.s5{background:#ffebe9}
@media (max-width:800px){nav.tags{display:none}main{padding:1rem}}
`;
