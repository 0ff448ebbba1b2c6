/** How the client's iterator walks a list endpoint; decided from the document by generate.ts. */
export type ListShape =
  /** `{<items>: [...], total, limit, offset}` with `limit` and `offset` query parameters */
  | { paging: 'offset'; items: string }
  /** `{<items>: [...], next_cursor}` with a `cursor` query parameter */
  | { paging: 'cursor'; items: string }
  /** `{<items>: [...]}` and nothing else: one request returns the whole list */
  | { paging: 'none'; items: string };
