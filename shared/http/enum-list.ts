import * as z from 'zod';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A query filter of one value or a comma list, each from `values` (`status=open,pending`); 422
 * otherwise. The document shows the same rule (the values, or a `pattern` for a list), so a client
 * knows it before sending.
 */
export const enumList = <T extends readonly [string, ...string[]]>(values: T) => {
  const one = `\\s*(${values.map(escapeRegExp).join('|')})\\s*`;
  return (
    z
      .string()
      .max(200)
      // one value from the list (what SDK generators turn into a union type), or a comma list of
      // them; each branch a string (the document moves the string's own limits into the branches)
      .meta({
        anyOf: [
          { type: 'string', enum: [...values] },
          { type: 'string', pattern: `^${one}(,${one})*$` },
        ],
        examples: [values.slice(0, 2).join(',')],
      })
      .transform((v) => v.split(',').map((s) => s.trim()))
      .pipe(z.array(z.enum(values)).min(1))
  );
};
