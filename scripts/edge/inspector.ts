// A CPU profiler of one Worker in the edge stack, over workerd's inspector (the DevTools protocol
// that Miniflare's `inspectorPort` opens: one target per Worker, `core:user:<name>`). Used by
// `npm run bench:edge` with EDGE_PROFILE set.
import WebSocket from 'ws';
import type { Profile } from '../lib/cpu-profile';

export interface WorkerProfiler {
  start(): Promise<void>;
  stop(): Promise<Profile>;
  close(): void;
}

export async function workerProfiler(inspectorPort: number, worker: string): Promise<WorkerProfiler> {
  const ws = new WebSocket(`ws://127.0.0.1:${inspectorPort}/core:user:${worker}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 0;
  const waiting = new Map<number, (reply: { result?: unknown; error?: { message: string } }) => void>();
  ws.on('message', (data) => {
    const reply = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    // events (no id) are not asked for here
    if (reply.id === undefined) return;
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (reply) =>
        reply.error ? reject(new Error(`${method}: ${reply.error.message}`)) : resolve(reply.result),
      );
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  // workerd samples far more sparsely than asked (scripts/lib/cpu-profile.ts): ask for the most
  await send('Profiler.setSamplingInterval', { interval: 10 });
  return {
    start: async () => {
      await send('Profiler.start');
    },
    stop: async () => ((await send('Profiler.stop')) as { profile: Profile }).profile,
    close: () => ws.close(),
  };
}
