// zod's `v4/classic/external.js` minus `locales` (every language's error messages, ~260 KB), the
// JIT `compile` family and `fromJSONSchema` (~45 KB; no Worker uses them: the parity check enforces it).
// esbuild cannot tree-shake the `z` namespace of `import { z } from 'zod'`, so each Worker bundle
// would carry all locales; wrangler.toml's generated `[alias] zod` points here instead (edge only;
// zod still registers English itself on first schema construction). Keep in step with the installed
// zod (scripts/check-runtime-parity.ts compares the export lists).

export * from '../../../node_modules/zod/v4/classic/checks.js';
export * as coerce from '../../../node_modules/zod/v4/classic/coerce.js';
export * from '../../../node_modules/zod/v4/classic/compat.js';
export { deepPartial } from '../../../node_modules/zod/v4/classic/deep-partial.js';
export * from '../../../node_modules/zod/v4/classic/errors.js';
export { input, output } from '../../../node_modules/zod/v4/classic/in-out.js';
export * as iso from '../../../node_modules/zod/v4/classic/iso.js';
export {
  ZodISODate,
  ZodISODateTime,
  ZodISODuration,
  ZodISOTime,
} from '../../../node_modules/zod/v4/classic/iso.js';
export * from '../../../node_modules/zod/v4/classic/parse.js';
export * from '../../../node_modules/zod/v4/classic/schemas.js';
export { toJSONSchema } from '../../../node_modules/zod/v4/core/json-schema-processors.js';
export * as core from './core';
export {
  $brand,
  $input,
  $output,
  clone,
  config,
  flattenError,
  formatError,
  getDiscriminatedOption,
  globalRegistry,
  memoizer,
  NEVER,
  prettifyError,
  regexes,
  registry,
  TimePrecision,
  toZod,
  treeifyError,
  util,
} from './core';
