/** The API's `detail` as one sentence: a string, or the 422 list of issues (`field: message`). */
export function describeError(body: unknown, status: number): string {
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail
      .map(
        (d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).slice(1).join('.') || 'input'}: ${d.msg}`,
      )
      .join('; ');
  return `The request failed (HTTP ${status}).`;
}
