import { sql } from 'kysely';
import type { Executor } from '../db/schema';
import type { TicketFieldType } from '../db/tables/helpdesk';
import { type ValidationIssue, validationError } from '../http/errors';

export const TICKET_FIELD_TYPES = ['text', 'number', 'date', 'checkbox', 'dropdown', 'multiselect'] as const;
/** The types whose values are chosen from `options`. */
export const OPTION_TYPES: ReadonlySet<TicketFieldType> = new Set(['dropdown', 'multiselect']);
export const FIELD_KEY = /^[a-z0-9_]{1,64}$/;
export const FIELD_LIMITS = { text: 10_000, option: 200, options: 200, label: 200 } as const;

export interface FieldDef {
  key: string;
  type: TicketFieldType;
  options: string[];
  required: boolean;
}
export type CustomFields = Record<string, unknown>;
/** A stored custom field value: text, number, date (text), checkbox, dropdown (text), multiselect (list). */
export type FieldValue = string | number | boolean | string[] | null;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isDate = (v: unknown): v is string => {
  if (typeof v !== 'string') return false;
  const m = DATE.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === v;
};
const oneOf = (def: FieldDef) => `Input should be one of: ${def.options.map((o) => `'${o}'`).join(', ')}`;

/** Why `value` is not a value of `def` (null: it is), and the value as stored. */
function checkValue(
  def: FieldDef,
  value: unknown,
): { issue: Omit<ValidationIssue, 'loc'> } | { value: unknown } {
  switch (def.type) {
    case 'text':
      if (typeof value !== 'string')
        return { issue: { msg: 'Input should be a valid string', type: 'string_type' } };
      if (value.length > FIELD_LIMITS.text)
        return {
          issue: {
            msg: `String should have at most ${FIELD_LIMITS.text} characters`,
            type: 'string_too_long',
          },
        };
      return { value };
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value))
        return { issue: { msg: 'Input should be a valid number', type: 'float_type' } };
      return { value };
    case 'date':
      if (!isDate(value))
        return { issue: { msg: 'Input should be a valid date (YYYY-MM-DD)', type: 'date_type' } };
      return { value };
    case 'checkbox':
      if (typeof value !== 'boolean')
        return { issue: { msg: 'Input should be a valid boolean', type: 'bool_type' } };
      return { value };
    case 'dropdown':
      if (typeof value !== 'string' || !def.options.includes(value))
        return { issue: { msg: oneOf(def), type: 'enum' } };
      return { value };
    case 'multiselect': {
      if (!Array.isArray(value)) return { issue: { msg: 'Input should be a valid list', type: 'list_type' } };
      if (value.some((v) => typeof v !== 'string' || !def.options.includes(v)))
        return { issue: { msg: oneOf(def), type: 'enum' } };
      return { value: [...new Set(value as string[])] };
    }
  }
}

/**
 * The custom fields a ticket stores after a write: `given` (a create's or a PATCH's
 * `custom_fields`; null clears a value) over `current` (the ticket's, on a PATCH), checked against
 * the tenant's definitions. Throws one 422 naming every refused key at
 * `["body", "custom_fields", key]`: an unknown key, a value of the wrong type or outside the
 * options, a required field left without a value (on a create; on a PATCH, one cleared).
 * Values of fields that no longer exist are dropped.
 */
export function checkCustomFields(
  defs: readonly FieldDef[],
  given: CustomFields | undefined,
  current?: CustomFields,
): Record<string, FieldValue> {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const issues: ValidationIssue[] = [];
  const at = (key: string) => ['body', 'custom_fields', key];
  const out: CustomFields = {};
  for (const [key, value] of Object.entries(current ?? {})) if (byKey.has(key)) out[key] = value;
  for (const [key, value] of Object.entries(given ?? {})) {
    const def = byKey.get(key);
    if (!def) {
      issues.push({ loc: at(key), msg: 'Unknown ticket field', type: 'value_error' });
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    const checked = checkValue(def, value);
    if ('issue' in checked) issues.push({ loc: at(key), ...checked.issue });
    else out[key] = checked.value;
  }
  // a create needs every required field; a PATCH may not clear one (tickets older than the field
  // keep validating)
  for (const def of defs) {
    if (!def.required || out[def.key] !== undefined) continue;
    if (current === undefined || (given && given[def.key] === null))
      issues.push({ loc: at(def.key), msg: 'Field required', type: 'missing' });
  }
  if (issues.length > 0) throw validationError(issues);
  return out as Record<string, FieldValue>;
}

/** The tenant's ticket field definitions (the unique (tenant_id, key) index serves the read). */
export function ticketFieldDefs(db: Executor, tenantId: string): Promise<FieldDef[]> {
  return db
    .selectFrom('ticket_fields')
    .select(['key', 'type', 'options', 'required'])
    .where('tenant_id', '=', tenantId)
    .orderBy('key')
    .execute();
}

/**
 * The `custom_fields.<key>=<value>` filters of a list's query, each as the text the index keeps
 * (tenant_custom_field_keys, schema/0027): `<tenant>:<key>=<value's text>`. An unknown key or a
 * value its type cannot hold is a 422 at `["query", "custom_fields.<key>"]`.
 */
export function customFieldFilters(
  defs: readonly FieldDef[],
  tenantId: string,
  query: Record<string, string>,
): string[] {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const issues: ValidationIssue[] = [];
  const keys: string[] = [];
  for (const [param, raw] of Object.entries(query)) {
    const key = param.slice('custom_fields.'.length);
    const loc = ['query', param];
    const def = byKey.get(key);
    if (!def) {
      issues.push({ loc, msg: 'Unknown ticket field', type: 'value_error' });
      continue;
    }
    const indexed = customFieldKey(def, tenantId, raw);
    if (indexed === null)
      issues.push({ loc, msg: `Not a value of this ${def.type} field`, type: 'value_error' });
    else keys.push(indexed);
  }
  if (issues.length > 0) throw validationError(issues);
  return keys;
}

/**
 * `raw` (a filter's value as written) as the key the index keeps for field `def` of the tenant
 * (`<tenant>:<key>=<value's text>`), or null when the field's type cannot hold it. The list's
 * `custom_fields.<key>=` and the search's `custom_fields.<key>:` both filter through it.
 */
export function customFieldKey(def: FieldDef, tenantId: string, raw: string): string | null {
  const text = filterText(def, raw);
  return text === null ? null : `${tenantId}:${def.key}=${text}`;
}

/** A query value as the JSON scalar's text the index keeps (`#>> '{}'`), or null when the type cannot hold it. */
function filterText(def: FieldDef, raw: string): string | null {
  switch (def.type) {
    case 'number': {
      if (!/^-?\d+(\.\d+)?$/.test(raw)) return null;
      return String(Number(raw));
    }
    case 'checkbox':
      return raw === 'true' || raw === 'false' ? raw : null;
    case 'date':
      return isDate(raw) ? raw : null;
    case 'dropdown':
    case 'multiselect':
      return def.options.includes(raw) ? raw : null;
    case 'text':
      return raw;
  }
}

/** `WHERE` for the filters customFieldFilters gave: the GIN index's containment. */
export const customFieldsMatch = (keys: readonly string[]) =>
  sql<boolean>`tenant_custom_field_keys(tenant_id, custom_fields) @> ARRAY[${sql.join(keys)}]::text[]`;

/**
 * A field's deletion removes its values from the tenant's tickets, in the caller's transaction (so
 * reads, events and exports stop carrying them, and the filter index forgets them).
 */
export async function dropFieldValues(trx: Executor, tenantId: string, key: string) {
  await sql`UPDATE tickets SET custom_fields = custom_fields - ${key}::text, updated_at = now()
             WHERE tenant_id = ${tenantId} AND custom_fields -> ${key}::text IS NOT NULL`.execute(trx);
}
