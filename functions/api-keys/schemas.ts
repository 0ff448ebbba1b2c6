import { z } from 'zod';

/** Spec section A limits: name 1-100, description <= 500, scopes >= 1, expires_in_days 1-3650. */
export const CreateApiKeyBody = z.strictObject({
  name: z.string().min(1).max(100),
  description: z.string().max(500).nullish(),
  scopes: z.array(z.string().max(100)).min(1).max(100),
  expires_in_days: z.number().int().min(1).max(3650).nullish(),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

export const KeyIdParam = z.object({ key_id: z.string().min(1).max(64) });
