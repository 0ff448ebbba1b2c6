// The edge bundles' `zod` (wrangler alias, see ./external.ts): zod's own index over an entry without locales.
import * as z from './external';

export * from './external';
export { z, z as default };
