import * as z from 'zod';
import { SCOPE_CATALOG } from '../../shared/context/scopes';
import { requiredName } from '../../shared/http/names';

/** Spec section A limits: name 1-100, description <= 500, scopes >= 1, expires_in_days 1-3650. */
export const CreateApiKeyBody = z.strictObject({
  name: requiredName(100),
  description: z.string().max(500).nullish(),
  // the catalog is checked by the handler (an unknown scope is the spec's 400, not a 422); the
  // document lists it as the items' enum so a client knows the names
  scopes: z
    .array(
      z
        .string()
        .max(100)
        .meta({ enum: [...SCOPE_CATALOG] }),
    )
    .min(1)
    .max(100),
  expires_in_days: z.number().int().min(1).max(3650).nullish(),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const KeyIdParam = z.object({
  key_id: z.string().min(1).max(64).describe('The API key id (`key_…`)'),
});
