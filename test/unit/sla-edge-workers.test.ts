// On Workers the SLA breach check is scheduled after the kicks of the Workers whose writes start or
// move a clock (shared/runtime/edge-sla.ts): a function that gains such a write must opt in, or its
// new due times would wait for another Worker's write to reach QStash.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = join(import.meta.dirname, '..', '..', 'functions');
/** The calls that set or move a record's SLA times (shared/sla/store.ts, records.ts; createTicket chooses one). */
const CLOCK_WRITES =
  /\b(createTicket|chosenSla|slaAfterStatus|slaAfterChange|ticketSlaAfterUpdate|conversationSlaAfterUpdate|recordFirstResponse)\(/;

function functionsMovingClocks(): string[] {
  return readdirSync(FUNCTIONS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .filter((name) =>
      readdirSync(join(FUNCTIONS, name), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
        .some((f) => CLOCK_WRITES.test(readFileSync(join(FUNCTIONS, name, f), 'utf8'))),
    )
    .sort();
}

describe('the breach check on Workers', () => {
  it('every Worker whose writes move an SLA clock schedules the check after its kicks', () => {
    const moving = functionsMovingClocks();
    expect(moving).toEqual(expect.arrayContaining(['conversations', 'tickets']));
    const missing = moving.filter(
      (name) =>
        !/edgeWorker\([^)]*withBreachChecks\(/.test(readFileSync(join(FUNCTIONS, name, 'index.ts'), 'utf8')),
    );
    expect(missing).toEqual([]);
  });
});
