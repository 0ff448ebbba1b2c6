import { describe, expect, it } from 'vitest';
import { foldRows, type MeteredRequest } from '../../shared/usage/meter';

const row = (over: Partial<MeteredRequest> = {}): MeteredRequest => ({
  tenant_id: 'ten_a',
  quantity: 1,
  method: 'GET',
  endpoint: '/api/v1/tickets/:ticket_id',
  status: 200,
  api_key_id: 'key_1',
  actor: 'api_key:key_1',
  at: Date.now(),
  ...over,
});

describe('foldRows: identical requests of one flush as one row', () => {
  it('keeps every sum exact and folds only rows that agree on every dimension', () => {
    const rows = [
      ...Array.from({ length: 120 }, () => row()),
      ...Array.from({ length: 30 }, () => row({ status: 404 })),
      ...Array.from({ length: 5 }, () => row({ tenant_id: 'ten_b' })),
      row({ api_key_id: null, actor: 'user:u1' }),
      row({ method: 'POST', endpoint: '/api/v1/tickets', status: 201 }),
    ];
    const folded = foldRows(rows);
    expect(folded).toHaveLength(5);
    const total = (rs: typeof folded) => rs.reduce((n, r) => n + r.quantity, 0);
    expect(total(folded)).toBe(rows.length);
    const ok = folded.find(
      (r) => r.tenant_id === 'ten_a' && r.status === 200 && r.method === 'GET' && r.api_key_id,
    );
    expect(ok?.quantity).toBe(120);
    expect(folded.find((r) => r.status === 404)?.quantity).toBe(30);
    expect(folded.find((r) => r.tenant_id === 'ten_b')?.quantity).toBe(5);
  });

  it('takes the time of the last request it stands for', () => {
    const first = row({ at: Date.parse('2026-11-21T10:00:00Z') });
    const last = row({ at: Date.parse('2026-11-21T10:00:00.090Z') });
    const [folded] = foldRows([first, last]);
    expect(folded).toMatchObject({ at: last.at, quantity: 2 });
  });
});
