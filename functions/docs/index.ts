// Workers entry of the `docs` function. Public and database-free (the OpenAPI document and the
// reference page): the edge core without database, webhook kicker, rate limiter or metering keeps
// this Worker, which also carries every function's schemas, well under the bundle budget.

import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { ACCESS_RULES } from '../manifest';
import { app } from './app';

export default edgeWorkerCore(app, ACCESS_RULES);
