import { describe, expect, it } from 'vitest';
import { CPU_RATIO_TARGETS, cpuLine, STARTUP_RATIO_TARGET, startupLine } from '../../scripts/edge/floor';

// The two commands' lines against the bare Worker are parsed by other tools: their prefixes are fixed.
describe('the edge floor lines', () => {
  it('prints startup beside the bare Worker with the ratio, then the verdict', () => {
    expect(startupLine('tickets', 12, 3)).toBe('startup tickets: 12 ms, bare 3 ms, 4.0x (target <= 5x): MET');
    expect(startupLine('docs', 40, 4)).toBe('startup docs: 40 ms, bare 4 ms, 10.0x (target <= 5x): MISSED');
    expect(STARTUP_RATIO_TARGET).toBe(5);
  });

  it('takes the clock resolution as the floor when the bare startup reads 0 ms', () => {
    expect(startupLine('health', 6, 0)).toBe('startup health: 6 ms, bare 0 ms, 6.0x (target <= 5x): MISSED');
  });

  it('prints CPU per request beside the bare Worker, each case against its own target', () => {
    expect(cpuLine('ticket-read', 3.5, 1.25, CPU_RATIO_TARGETS['ticket-read'])).toBe(
      'edge ticket-read: cpu 3.50 ms per request, bare 1.25 ms, 2.8x (target <= 3x): MET',
    );
    expect(cpuLine('ticket-create', 7, 1.25, CPU_RATIO_TARGETS['ticket-create'])).toBe(
      'edge ticket-create: cpu 7.00 ms per request, bare 1.25 ms, 5.6x (target <= 5x): MISSED',
    );
    expect(cpuLine('delivery-bookkeeping', 2, 1, undefined)).toBe(
      'edge delivery-bookkeeping: cpu 2.00 ms per request, bare 1.00 ms, 2.0x for comparison',
    );
  });

  it('never meets a target against a floor that read no CPU', () => {
    expect(cpuLine('ticket-list', 1, 0, 3)).toMatch(
      /^edge ticket-list: cpu 1\.00 ms per request, bare 0\.00 ms, .*MISSED$/,
    );
  });

  it('bounds the read and the list at 3x and the creation at 5x', () => {
    expect(CPU_RATIO_TARGETS).toEqual({ 'ticket-read': 3, 'ticket-list': 3, 'ticket-create': 5 });
  });
});
