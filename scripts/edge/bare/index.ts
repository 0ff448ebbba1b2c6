// The floor of the edge measurements (`npm run build:edge`'s startup, `npm run bench:edge`'s CPU per
// request): a bare Hono Worker, one GET route answering a small JSON, bundled by the same wrangler
// settings as every function (scripts/edge/config.ts's writeBareConfig) and run in the same workerd.
// Whatever a function's Worker costs beyond this is our code's.
import { Hono } from 'hono';

const app = new Hono();
app.get('/__bare', (c) => c.json({ ok: true }));

export default app;
