// The SLA breach check's scheduling for the Workers whose writes start or move an SLA clock
// (tickets, conversations, calls, end-user: `edgeWorker(app, ACCESS_RULES, withBreachChecks())` in
// their functions/<name>/index.ts). Every such write emits an event, so after a kick the earliest
// due time of any row is put on QStash (shared/sla/edge-check.ts). A separate module so that the
// Workers that move no clock (the auth Worker, at the bundle budget, among them) do not carry it.
import { qstashBreachCheckPublisher, scheduleBreachCheck } from '../sla/edge-check';
import { type EdgeOptions, edgeWebhookKicker } from './edge';

export function withBreachChecks(options: EdgeOptions = {}): EdgeOptions {
  const inner = options.kicker ?? edgeWebhookKicker;
  return {
    ...options,
    kicker: (ctx) => {
      const events = inner(ctx);
      const publisher = qstashBreachCheckPublisher(ctx.config);
      let scheduled = false;
      return {
        kick() {
          events.kick();
          if (!publisher || scheduled) return;
          scheduled = true;
          const { db, defer, logger } = ctx.services;
          defer(() => scheduleBreachCheck(db, publisher, logger));
        },
      };
    },
  };
}
