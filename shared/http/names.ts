import * as z from 'zod';

/**
 * A name the caller must give (a key's, a tenant's, a person's): trimmed before it is checked, so a
 * name of whitespace alone is empty and a 422 like a missing one, and what is stored has no padding.
 */
export const requiredName = (max: number) =>
  z.string().trim().min(1, 'Must not be empty or whitespace only').max(max);
