// Workers entry of the `docs` function. Public and database-free (the OpenAPI document and the
// reference page): the edge core without database, webhook kicker, rate limiter or metering keeps
// this Worker well under the bundle budget. This entry builds its documents from the route registry
// on first use; the deployed bundle's entry is generated instead (scripts/edge/docs-worker.ts) and
// embeds them built ahead, so the Worker evaluates none of the functions' schemas at startup. Both
// answer the same bytes (test/unit/docs-prebuilt.test.ts).

import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { ACCESS_RULES } from '../manifest';
import { app } from './app';

export default edgeWorkerCore(app, ACCESS_RULES);
