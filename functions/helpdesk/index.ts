// Workers entry of the `helpdesk` function (deployed on its own; see wrangler.toml and scripts/deploy.ts).

import { edgeWorker } from '../../shared/runtime/edge';
import { ACCESS_RULES } from '../manifest';
import { app } from './app';

export default edgeWorker(app, ACCESS_RULES);
