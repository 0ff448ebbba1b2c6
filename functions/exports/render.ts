/** Rows to CSV (RFC 4180) or JSON. Cells that a spreadsheet would run as a formula are prefixed with `'`. */
const cell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  let s = v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function toCsv(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [columns.map(cell).join(',')];
  for (const r of rows) lines.push(columns.map((col) => cell(r[col])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function toJson(rows: Record<string, unknown>[]): string {
  return JSON.stringify(
    rows.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
    ),
  );
}

/** Columns never exported, whatever the table grows. */
export const HIDDEN_COLUMN = /(secret|password|hash|token|claim)/i;
