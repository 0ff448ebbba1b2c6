// Dependency-free so the console's browser bundle renders the same preview the server sends.

/** The placeholders a saved reply's body may hold; any other `{{...}}` is refused at creation. */
export const PLACEHOLDERS = [
  'contact.first_name',
  'contact.last_name',
  'contact.name',
  'contact.email',
  'agent.name',
  'conversation.id',
  'ticket.id',
  'ticket.subject',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** What a placeholder renders as; a missing one renders as empty text. */
export type PlaceholderValues = Partial<Record<Placeholder, string | null | undefined>>;

// `{{ name }}`: inner spaces allowed, no braces inside
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const KNOWN: ReadonlySet<string> = new Set(PLACEHOLDERS);

/** The placeholders of `body` that are not in PLACEHOLDERS, each once, in order of appearance. */
export function unknownPlaceholders(body: string): string[] {
  const unknown = new Set<string>();
  for (const match of body.matchAll(PLACEHOLDER)) if (!KNOWN.has(match[1]!)) unknown.add(match[1]!);
  return [...unknown];
}

/** `body` with every placeholder replaced by its value (empty text when the value is missing). */
export const renderPlaceholders = (body: string, values: PlaceholderValues): string =>
  body.replace(PLACEHOLDER, (whole, name: string) =>
    KNOWN.has(name) ? (values[name as Placeholder] ?? '') : whole,
  );
