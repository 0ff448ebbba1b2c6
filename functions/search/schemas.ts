import * as z from 'zod';
import { CompanyRecord, ContactRecord } from '../../shared/contacts/records';
import { ConversationSchema } from '../../shared/conversations/records';
import { enumList } from '../../shared/http/enum-list';
import { queryInt } from '../../shared/http/pagination';
import { MAX_QUERY_LENGTH } from '../../shared/search/query';
import { Ticket } from '../../shared/tickets/schemas';

/** The record types a search reads, in the order a tie between them is broken (ids, then this). */
export const SEARCH_TYPES = ['ticket', 'conversation', 'contact', 'company'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** `relevance` (default): best match first, then newest; `created_at` / `updated_at`: newest first. */
export const SEARCH_SORTS = ['relevance', 'created_at', 'updated_at'] as const;

const queryText = z
  .string()
  .min(1)
  .max(MAX_QUERY_LENGTH)
  .describe(
    'The query (docs/search.md): words and `"phrases"` matched as full text (all must match), `word*` as a prefix, `field:value` filters, `created>7d` or `updated<=2026-11-01`, `-` before a term to exclude it, `OR` between terms. A malformed query is a 422 naming what is wrong and its position.',
  )
  .meta({ example: 'printer "on fire" status:open,pending -tag:spam created>30d' });

const searchPage = {
  limit: queryInt(z.number().int().min(1).max(100), 20).describe('Hits per page, 1-100 (default 20)'),
  cursor: z
    .string()
    .max(2048)
    .optional()
    .describe('The `next_cursor` of the previous page, with the same query, types and sort'),
  sort: z
    .enum(SEARCH_SORTS)
    .default('relevance')
    .describe(
      '`relevance` (default): best match first, then newest; `created_at` / `updated_at`: newest first by that time, relevance ignored',
    ),
};

export const TicketSearchQuery = z.object({ query: queryText, ...searchPage });

export const SearchQuery = z.object({
  query: queryText,
  types: enumList(SEARCH_TYPES)
    .optional()
    .describe('The record types to search, one or a comma list (default: all four)'),
  ...searchPage,
});
export type SearchInput = z.output<typeof SearchQuery>;

export const Highlight = z.object({
  field: z
    .string()
    .describe('The field the fragment is taken from (`subject`, `description`, `reply`, `email`, …)'),
  fragment: z.string().describe('Plain text from the field around the first match (no markup)'),
  matches: z
    .array(z.array(z.number().int().min(0)).length(2))
    .describe('Where each match stands in `fragment`: [start, end) in UTF-16 code units'),
});

const hit = <T extends SearchType, R extends z.ZodType>(type: T, record: R) =>
  z.object({
    type: z.literal(type),
    record,
    highlights: z.array(Highlight).describe('The matched fields, each with a fragment and the matches in it'),
  });

export const TicketHit = hit('ticket', Ticket);
export const ConversationHit = hit('conversation', ConversationSchema);
export const ContactHit = hit('contact', ContactRecord);
export const CompanyHit = hit('company', CompanyRecord);

const nextCursor = z
  .string()
  .nullable()
  .describe(
    'Pass as `cursor` (with the same query, types and sort) for the next page; null on the last page',
  );

export const TicketSearchResult = z.object({ hits: z.array(TicketHit), next_cursor: nextCursor });
export const SearchResult = z.object({
  hits: z.array(z.discriminatedUnion('type', [TicketHit, ConversationHit, ContactHit, CompanyHit])),
  next_cursor: nextCursor,
});
