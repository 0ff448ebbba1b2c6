import { errorField, type Logger } from '../log/logger';

/**
 * The one `services.defer` (work after the response) of both runtimes: a failed task is a warning
 * in the log, never an exception into the request; `drain()` waits until nothing is in flight,
 * tasks deferred meanwhile included. Node builds one per process (tests and shutdown drain it);
 * a Worker one per request, handing each task to `waitUntil` and closing the request's database
 * handle after `drain()`.
 */
export function createDefer(logger: Logger, waitUntil?: (task: Promise<unknown>) => void) {
  const inFlight = new Set<Promise<unknown>>();
  const defer = (task: () => Promise<unknown>) => {
    // started on a later turn of the event loop, not a microtask: the request's answer is handed to
    // the runtime first, instead of waiting behind the synchronous start of the task (a query's
    // compilation and its fetch on the edge)
    const p: Promise<unknown> = new Promise((started) => setTimeout(started, 0))
      .then(task)
      .catch((err) => logger.warn({ error: errorField(err) }, 'deferred task failed'))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    waitUntil?.(p);
  };
  const drain = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return { defer, drain };
}
