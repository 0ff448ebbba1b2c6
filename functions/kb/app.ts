import { Hono } from 'hono';
import { actorOf, tenantOf } from '../../shared/auth/credential';
import type { AppEnv } from '../../shared/context/app-env';
import type { Db, Executor } from '../../shared/db/schema';
import type { KbProviderId } from '../../shared/db/tables/contacts_kb';
import { tenantExists } from '../../shared/db/tenants';
import type { AppConfig } from '../../shared/env';
import { emitEvent } from '../../shared/events/emit';
import { answerWithWork, sendAnswer, storedJson } from '../../shared/http/answer-with-work';
import { badRequest, Detail, notFound } from '../../shared/http/errors';
import { pageEnvelope } from '../../shared/http/pagination';
import { register } from '../../shared/http/route';
import {
  type ArticleRow,
  articleRef,
  articleView,
  findArticle,
  findHelpCenterArticle,
  helpCenterView,
  insertDraft,
  listArticles,
  listHelpCenterArticles,
  markArticlePublished,
  ORDER,
  publicationsOf,
  updateArticleRow,
  upsertPublication,
} from './data';
import { publishAt } from './publishers';
import * as routes from './routes';
import type { UpdateArticleBody } from './schemas';

/**
 * Knowledge base: authoring and publishing (dashboard: `/api/kb/create-v2`, `/api/v2/kb/articles`)
 * and the public help center (`/api/v1/help-center/{tenant_id}/...`, no credential).
 * docs/kb.md describes the destinations, the response shapes and the event rules.
 */
export const app = new Hono<AppEnv>();

/** The article with its publications; 404 when the tenant has no such article. */
async function loadArticle(db: Executor, tenantId: string, id: string) {
  const article = await findArticle(db, tenantId, id);
  if (!article) throw notFound('Article');
  return { article, pubs: await publicationsOf(db, [article.id]) };
}

/** 400 before anything is written when itsm is asked for but not configured. */
function assertDestinationsConfigured(destinations: readonly KbProviderId[], config: AppConfig) {
  if (destinations.includes('itsm') && !config.ITSM_KB_URL)
    throw badRequest(Detail.kbDestinationNotConfigured('itsm'));
}

// ---- publishing -------------------------------------------------------------------------------

/**
 * Publishes to each destination in turn. A destination's write happens first (the upstream call,
 * or nothing for native); only a write that succeeded is committed, together with exactly one
 * kb.article.published, in its own transaction. A failed destination records its error and
 * emits nothing. Returns the article as last written and how many events were written.
 */
async function publishTo(
  services: { db: Db; config: AppConfig },
  start: ArticleRow,
  destinations: readonly KbProviderId[],
) {
  let current = start;
  let emitted = 0;
  for (const dest of destinations) {
    const outcome = await publishAt(dest, current, services.config);
    if (!outcome.ok) {
      await recordPublishFailure(services.db, current, dest, outcome.error);
      continue;
    }
    current = await commitPublication(services.db, current, dest, outcome);
    emitted++;
  }
  return { article: current, emitted };
}

/** A failed destination: its publication says `failed` with the error; nothing is emitted. */
function recordPublishFailure(db: Db, article: ArticleRow, dest: KbProviderId, error: string) {
  return upsertPublication(db, article, dest, { status: 'failed', error }, new Date());
}

/**
 * A destination's successful write, committed in one transaction: the article published (an
 * itsm-only article takes the upstream url), its publication record, one kb.article.published.
 */
function commitPublication(
  db: Db,
  article: ArticleRow,
  dest: KbProviderId,
  written: { external_id: string | null; url: string | null },
) {
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    const ownsUrl = dest === 'itsm' && article.provider_id === 'itsm';
    const row = await markArticlePublished(trx, article.id, now, ownsUrl ? written.url : undefined);
    await upsertPublication(
      trx,
      row,
      dest,
      { status: 'published', external_id: written.external_id, url: written.url, error: null },
      now,
    );
    await emitEvent(trx, row.tenant_id, 'kb.article.published', {
      article: articleRef(row, dest, written.url),
    });
    return row;
  });
}

// ---- authoring (dashboard) --------------------------------------------------------------------

/**
 * Create an article and publish it to its destinations. 201 with the article and one
 * `publications` entry per destination (`published` or `failed` with `error`); the request
 * succeeds even when a destination fails. `status: "draft"` publishes nowhere and emits nothing.
 */
register(app, routes.createArticle, async (c) => {
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, config, events } = c.get('services');
  if (body.status === 'published') assertDestinationsConfigured(body.destinations, config);
  const destinations = [...body.destinations].sort((a, b) => ORDER[a] - ORDER[b]);
  const writeDraft = (ex: Executor) =>
    insertDraft(ex, {
      tenantId,
      title: body.title,
      body: body.body,
      provider_id: destinations.includes('native') ? 'native' : 'itsm',
      tags: body.tags,
      category: body.category ?? null,
      language: body.language,
      destinations,
      createdBy: actorOf(c),
    });
  if (body.status === 'draft') {
    const { answer } = await answerWithWork(c, writeDraft, (draft) =>
      storedJson(201, articleView(draft, [])),
    );
    return sendAnswer(c, answer);
  }
  // stage 1 (intermediate, emits nothing): the article exists as a draft
  const draft = await writeDraft(db);
  // stage 2: one write per destination, one event per successful write
  const { emitted } = await publishTo({ db, config }, draft, destinations);
  if (emitted > 0) events.kick();
  // Publishing reaches destinations outside the database, which no transaction holds: the answer
  // commits after them, with the read it answers (a crash before it publishes again on a retry).
  const { answer } = await answerWithWork(
    c,
    (ex) => loadArticle(ex, tenantId, draft.id),
    ({ article, pubs }) => storedJson(201, articleView(article, pubs)),
  );
  return sendAnswer(c, answer);
});

register(app, routes.listArticles, async (c) => {
  const query = c.req.valid('query');
  const { db } = c.get('services');
  const { rows, total } = await listArticles(db, tenantOf(c), query);
  const pubs = await publicationsOf(
    db,
    rows.map((r) => r.id),
  );
  const views = rows.map((r) =>
    articleView(
      r,
      pubs.filter((p) => p.article_id === r.id),
    ),
  );
  return c.json(pageEnvelope('articles', views, total, query));
});

register(app, routes.getArticle, async (c) => {
  const { article_id } = c.req.valid('param');
  const { article, pubs } = await loadArticle(c.get('services').db, tenantOf(c), article_id);
  return c.json(articleView(article, pubs));
});

/**
 * The columns an edit changes (empty when it changes nothing), and whether it publishes: a
 * `status: "published"` on an unpublished article is a publication, not a column write.
 */
function articleEdit(before: ArticleRow, body: UpdateArticleBody) {
  const set: Record<string, unknown> = {};
  for (const key of ['title', 'body', 'language'] as const)
    if (body[key] !== undefined && body[key] !== before[key]) set[key] = body[key];
  if (body.category !== undefined && (body.category ?? null) !== before.category)
    set.category = body.category ?? null;
  if (body.tags !== undefined && JSON.stringify(body.tags) !== JSON.stringify(before.tags))
    set.tags = body.tags;
  const publishing = body.status === 'published' && before.status !== 'published';
  if (body.status !== undefined && body.status !== before.status && !publishing) set.status = body.status;
  return { set, publishing };
}

/**
 * Writes the edit (in the caller's transaction); a published help-center (native) article
 * announces it with one kb.article.updated.
 */
async function applyEdit(trx: Executor, tenantId: string, before: ArticleRow, set: Record<string, unknown>) {
  const row = await updateArticleRow(trx, before.id, set);
  const announced = before.provider_id === 'native' && before.status === 'published';
  if (announced)
    await emitEvent(trx, tenantId, 'kb.article.updated', { article: articleRef(row, 'native', null) });
  return { row, emitted: announced ? 1 : 0 };
}

/**
 * Edit an article. Emits kb.article.updated (once) when the article is a help-center (native)
 * article that was published before the edit and the edit changed something. A PATCH that
 * changes nothing is a 200 no-op without event. Setting `status: "published"` on an unpublished
 * article publishes it to its destinations exactly like create-v2 (kb.article.published per
 * successful destination).
 */
register(app, routes.updateArticle, async (c) => {
  const { article_id } = c.req.valid('param');
  const body = c.req.valid('json');
  const tenantId = tenantOf(c);
  const { db, config, events } = c.get('services');
  const { article: before } = await loadArticle(db, tenantId, article_id);
  const { set, publishing } = articleEdit(before, body);
  if (publishing) assertDestinationsConfigured(before.destinations, config);
  const answerOf = ({ article, pubs }: Awaited<ReturnType<typeof loadArticle>>) =>
    storedJson(200, articleView(article, pubs));
  if (!publishing) {
    // the edit (if any) and its answer commit together
    const { result, answer } = await answerWithWork(
      c,
      async (trx) => {
        const emitted =
          Object.keys(set).length > 0 ? (await applyEdit(trx, tenantId, before, set)).emitted : 0;
        return { emitted, ...(await loadArticle(trx, tenantId, before.id)) };
      },
      answerOf,
      { transaction: true },
    );
    if (result.emitted > 0) events.kick();
    return sendAnswer(c, answer);
  }
  let after = before;
  let emitted = 0;
  if (Object.keys(set).length > 0) {
    const edited = await db.transaction().execute((trx) => applyEdit(trx, tenantId, before, set));
    after = edited.row;
    emitted += edited.emitted;
  }
  emitted += (await publishTo({ db, config }, after, after.destinations)).emitted;
  if (emitted > 0) events.kick();
  // as at creation: publishing reaches outside the database, so the answer commits after it
  const { answer } = await answerWithWork(c, (ex) => loadArticle(ex, tenantId, before.id), answerOf);
  return sendAnswer(c, answer);
});

// ---- public help center (no credential) -------------------------------------------------------

register(app, routes.listHelpCenterArticles, async (c) => {
  const { tenant_id } = c.req.valid('param');
  const query = c.req.valid('query');
  const { db } = c.get('services');
  if (!(await tenantExists(db, tenant_id))) throw notFound('Help center');
  const { rows, total } = await listHelpCenterArticles(db, tenant_id, query);
  return c.json(pageEnvelope('articles', rows.map(helpCenterView), total, query));
});

register(app, routes.getHelpCenterArticle, async (c) => {
  const { tenant_id, article_id } = c.req.valid('param');
  const row = await findHelpCenterArticle(c.get('services').db, tenant_id, article_id);
  if (!row) throw notFound('Article');
  return c.json(helpCenterView(row));
});
