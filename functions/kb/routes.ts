import * as z from 'zod';
import { ErrorBody } from '../../shared/http/error-body';
import { defineComponents } from '../../shared/http/openapi';
import { defineRoute } from '../../shared/http/route';
import {
  ArticleIdParam,
  ArticleRecord,
  CreateArticleBody,
  HelpCenterArticle,
  HelpCenterArticleParam,
  HelpCenterQuery,
  HelpCenterTenantParam,
  ListArticlesQuery,
  UpdateArticleBody,
} from './schemas';

const page = (item: z.ZodType) =>
  z.object({
    articles: z.array(item),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
const kb = ['Knowledge base'];
const hc = ['Help center'];

export const createArticle = defineRoute({
  operationId: 'createArticle',
  emits: ['kb.article.published'],
  method: 'post',
  path: '/api/kb/create-v2',
  access: { role: 'agent' },
  summary: 'Create and publish a knowledge-base article',
  description:
    'Agent or higher. Publishes to each destination (`native` help center, upstream `itsm`) and emits one `kb.article.published` per successful destination write (provider_id `native` with url null, or `itsm` with the upstream url). A failed destination emits nothing and is reported in `publications` with its error; the answer is still 201. `status: "draft"` publishes nowhere and emits nothing.',
  tags: kb,
  body: CreateArticleBody,
  responses: {
    201: { description: 'The article with one publication result per destination', schema: ArticleRecord },
    400: {
      description: 'itsm requested but ITSM_KB_URL is not configured',
      schema: ErrorBody,
      example: { detail: 'Destination itsm is not configured' },
    },
  },
});

export const listArticles = defineRoute({
  operationId: 'listArticles',
  method: 'get',
  path: '/api/v2/kb/articles',
  access: { role: 'agent' },
  summary: 'List articles',
  description: 'Most recently updated first; `status` filter; `q` searches title and body.',
  tags: kb,
  query: ListArticlesQuery,
  responses: { 200: { description: 'A page of articles', schema: page(ArticleRecord) } },
});

export const getArticle = defineRoute({
  operationId: 'getArticle',
  description:
    'One knowledge-base article with its publications per destination. 404 for an unknown article.',
  method: 'get',
  path: '/api/v2/kb/articles/{article_id}',
  access: { role: 'agent' },
  summary: 'Get an article',
  tags: kb,
  params: ArticleIdParam,
  responses: {
    200: { description: 'The article', schema: ArticleRecord },
    404: { description: 'Unknown or another tenant', schema: ErrorBody },
  },
});

export const updateArticle = defineRoute({
  operationId: 'updateArticle',
  emits: ['kb.article.updated'],
  method: 'patch',
  path: '/api/v2/kb/articles/{article_id}',
  access: { role: 'agent' },
  summary: 'Edit an article',
  description:
    'Emits `kb.article.updated` once when the article is a published help-center (native) article and the edit changed something (also when it archives or unpublishes it). No change: 200, no event. `status: "published"` on an unpublished article publishes it to its destinations like create-v2 (`kb.article.published` per successful destination).',
  tags: kb,
  params: ArticleIdParam,
  body: UpdateArticleBody,
  responses: {
    200: { description: 'The article', schema: ArticleRecord },
    404: {
      description: 'Unknown or another tenant',
      schema: ErrorBody,
      example: { detail: 'Article not found' },
    },
  },
});

export const listHelpCenterArticles = defineRoute({
  operationId: 'listHelpCenterArticles',
  method: 'get',
  path: '/api/v1/help-center/{tenant_id}/articles',
  summary: 'Help center: list published articles',
  description:
    'No credential. Published native articles only. `q`: every word must appear in the title or body.',
  tags: hc,
  params: HelpCenterTenantParam,
  query: HelpCenterQuery,
  responses: {
    200: { description: 'A page of articles', schema: page(HelpCenterArticle) },
    404: { description: 'Unknown tenant', schema: ErrorBody, example: { detail: 'Help center not found' } },
  },
});

export const getHelpCenterArticle = defineRoute({
  operationId: 'getHelpCenterArticle',
  method: 'get',
  path: '/api/v1/help-center/{tenant_id}/articles/{article_id}',
  summary: 'Help center: get a published article',
  description: "No credential. Drafts, archived, itsm-only and other tenants' articles are 404.",
  tags: hc,
  params: HelpCenterArticleParam,
  responses: {
    200: { description: 'The article', schema: HelpCenterArticle },
    404: { description: 'Not published here', schema: ErrorBody, example: { detail: 'Article not found' } },
  },
});

export const components = defineComponents({
  output: { Article: ArticleRecord, HelpCenterArticle },
  input: { ArticleCreate: CreateArticleBody, ArticleUpdate: UpdateArticleBody },
});
