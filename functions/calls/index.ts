// Workers entry of the `calls` function (deployed on its own; see wrangler.toml and scripts/deploy.ts).

import { edgeWorker } from '../../shared/runtime/edge';
import { withBreachChecks } from '../../shared/runtime/edge-sla';
import { ACCESS_RULES } from '../manifest';
import { app } from './app';

// its writes start and move SLA clocks: each kick puts the earliest due time on QStash
export default edgeWorker(app, ACCESS_RULES, withBreachChecks());
