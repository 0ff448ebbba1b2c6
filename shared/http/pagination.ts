import { z } from 'zod';

/**
 * The spec's pagination: `limit` 1..max (default per resource), `offset` >= 0, 422 outside.
 * Resources extend the returned schema with their own filters.
 */
export function pageQuery(options: { defaultLimit: number; maxLimit: number }) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(options.maxLimit).default(options.defaultLimit),
    offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  });
}

export const TICKETS_PAGE = { defaultLimit: 20, maxLimit: 100 } as const;

export interface Page {
  limit: number;
  offset: number;
}

/** `{<key>: rows, total, limit, offset}`: the spec's list envelope. */
export function pageEnvelope<K extends string, T>(key: K, rows: T[], total: number, page: Page) {
  return { [key]: rows, total, limit: page.limit, offset: page.offset } as { [P in K]: T[] } & {
    total: number;
    limit: number;
    offset: number;
  };
}
