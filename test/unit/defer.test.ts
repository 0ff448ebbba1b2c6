import { describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/log/logger';
import { createDefer } from '../../shared/runtime/defer';

const recordingLogger = () => {
  const warnings: { fields: unknown; msg: unknown }[] = [];
  const logger = {
    warn: (fields: unknown, msg: unknown) => warnings.push({ fields, msg }),
  } as unknown as Logger;
  return { logger, warnings };
};

describe('createDefer', () => {
  it('runs tasks after the caller returns; drain waits for them, and for what they defer', async () => {
    const { logger } = recordingLogger();
    const { defer, drain } = createDefer(logger);
    const done: string[] = [];
    defer(async () => {
      done.push('first');
      defer(async () => {
        done.push('second');
      });
    });
    expect(done).toEqual([]);
    await drain();
    expect(done).toEqual(['first', 'second']);
  });

  it('logs a failed task as a warning and never rejects', async () => {
    const { logger, warnings } = recordingLogger();
    const { defer, drain } = createDefer(logger);
    defer(async () => {
      throw new Error('boom');
    });
    await drain();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe('deferred task failed');
  });

  it('hands every task to waitUntil (Workers)', async () => {
    const { logger } = recordingLogger();
    const handed: Promise<unknown>[] = [];
    const { defer } = createDefer(logger, (p) => handed.push(p));
    defer(async () => 1);
    defer(async () => 2);
    expect(handed).toHaveLength(2);
    await Promise.all(handed);
  });
});
