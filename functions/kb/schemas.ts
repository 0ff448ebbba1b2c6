import * as z from 'zod';
import { pageQuery } from '../../shared/http/pagination';

export const KB_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;
export const DESTINATIONS = ['native', 'itsm'] as const;

const text = (max: number) => z.string().trim().min(1).max(max);
const Tags = z
  .array(text(50))
  .max(20)
  .transform((tags) => [...new Set(tags)]);
/** BCP 47-ish language tag: `en`, `pt-BR`, `zh-Hant` */
const Language = z
  .string()
  .trim()
  .regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8}){0,2}$/, 'Invalid language tag');

const pathId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'Invalid id: letters, digits, _ and - only');

const helpCenterId = pathId.describe('The tenant whose help center this is (`ten_…`)');
export const ArticleIdParam = z.object({ article_id: pathId.describe('The article id (`art_…`)') });
export const HelpCenterTenantParam = z.object({ tenant_id: helpCenterId });
export const HelpCenterArticleParam = z.object({
  tenant_id: helpCenterId,
  article_id: pathId.describe('The id of one of its published articles (`art_…`)'),
});

export const CreateArticleBody = z.strictObject({
  title: text(255),
  body: z.string().max(100_000).default(''),
  tags: Tags.default([]),
  category: text(100).nullish(),
  language: Language.default('en'),
  /** where to publish: the native help center, the upstream ITSM knowledge base, or both */
  destinations: z
    .array(z.enum(DESTINATIONS))
    .min(1)
    .max(10)
    .transform((d) => [...new Set(d)]),
  /** `draft` stores the article without publishing anywhere (and emits nothing) */
  status: z.enum(['draft', 'published']).default('published'),
});
export type CreateArticleBody = z.infer<typeof CreateArticleBody>;

export const UpdateArticleBody = z.strictObject({
  title: text(255).optional(),
  body: z.string().max(100_000).optional(),
  tags: Tags.optional(),
  category: text(100).nullish(),
  language: Language.optional(),
  status: z.enum(['draft', 'published', 'archived']).optional(),
});
export type UpdateArticleBody = z.infer<typeof UpdateArticleBody>;

/** An article search's `q`; each list says what it matches. */
const articleQ = z.string().trim().min(1).max(200).optional();

export const ListArticlesQuery = pageQuery(KB_PAGE).extend({
  status: z.enum(['draft', 'published', 'archived']).optional().describe('Only articles in this status'),
  q: articleQ.describe('Case-insensitive substring of the title or the body'),
});

export const HelpCenterQuery = pageQuery(KB_PAGE).extend({
  q: articleQ.describe(
    'Words that must all appear in the title or the body, case-insensitive (the first 10 count)',
  ),
  category: text(100).optional().describe('Only articles in this category'),
});

const ts = z.iso.datetime();

export const Publication = z.object({
  provider_id: z.enum(DESTINATIONS),
  status: z.enum(['published', 'failed']),
  url: z.string().nullable(),
  error: z.string().nullable(),
});

export const ArticleRecord = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  status: z.enum(['draft', 'published', 'archived']),
  /** `native` when the help center is a destination, else `itsm` */
  provider_id: z.enum(DESTINATIONS),
  /** null for native articles; the upstream URL for itsm-only ones */
  url: z.string().nullable(),
  tags: z.array(z.string()),
  category: z.string().nullable(),
  language: z.string(),
  destinations: z.array(z.enum(DESTINATIONS)),
  publications: z.array(Publication),
  created_at: ts,
  updated_at: ts,
  published_at: ts.nullable(),
});

export const HelpCenterArticle = z.object({
  id: z.string(),
  title: z.string(),
  body: z.string(),
  url: z.null(),
  tags: z.array(z.string()),
  category: z.string().nullable(),
  language: z.string(),
  updated_at: ts,
});
