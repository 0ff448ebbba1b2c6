// Workers entry of the `console` function: static files only, no database, no credential, so the
// edge core without database, kicker, limiter or metering (like the docs Worker).

import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { ACCESS_RULES } from '../manifest';
import { app } from './app';

export default edgeWorkerCore(app, ACCESS_RULES);
