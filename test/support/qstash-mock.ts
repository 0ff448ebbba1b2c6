// The tests' QStash is the stand-in the edge stack runs (scripts/edge/qstash.ts): one copy of how
// QStash publishes, delays, retries and signs.
export {
  type Delivery,
  type Publish,
  type QStashStandIn as QStashMock,
  signQStashCallback,
  startQStashStandIn as startQStashMock,
} from '../../scripts/edge/qstash';
