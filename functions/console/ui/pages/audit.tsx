/** @jsxImportSource hono/jsx/dom */
import { useState } from 'hono/jsx/dom';
import { AUDIT_ACTIONS } from '../../../../shared/audit/actions';
import { allowed } from '../access';
import { api, must } from '../api';
import { Empty, ErrorText, Loading, NotForYourRole, PageHead, Pager, Time, useLoad } from '../components';

interface Entry {
  id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  source_ip: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
}

const PAGE = 50;

export function AuditPage() {
  if (!allowed('audit')) return <NotForYourRole title="Audit log" action="audit" />;
  return <AuditList />;
}

function AuditList() {
  const [action, setAction] = useState('');
  const [offset, setOffset] = useState(0);
  const log = useLoad(
    async () =>
      (await must(
        api.GET('/api/v2/audit-log', {
          params: {
            query: {
              limit: PAGE,
              offset,
              ...(action ? { action: action as (typeof AUDIT_ACTIONS)[number] } : {}),
            },
          },
        }),
      )) as { entries: Entry[]; total: number },
    [action, offset],
  );
  return (
    <section aria-labelledby="page-title">
      <PageHead
        title="Audit log"
        intro="Every change to API keys and webhooks: who, what, when and from where."
      />
      <div class="filters">
        <label for="audit-action">Action</label>
        <select
          id="audit-action"
          onChange={(e: Event) => {
            setAction((e.target as HTMLSelectElement).value);
            setOffset(0);
          }}
        >
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a} selected={a === action}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <ErrorText message={log.error} />
      {log.loading && !log.data ? <Loading what="the audit log" /> : null}
      {log.data && log.data.entries.length === 0 ? <Empty>Nothing recorded yet.</Empty> : null}
      {log.data && log.data.entries.length > 0 ? (
        <>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Details</th>
                  <th scope="col">Source IP</th>
                </tr>
              </thead>
              <tbody>
                {log.data.entries.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Time iso={e.created_at} />
                    </td>
                    <td class="mono">{e.actor}</td>
                    <td>
                      <span class="chip">{e.action}</span>
                    </td>
                    <td class="mono">{e.target_id}</td>
                    <td class="mono small">
                      {Object.entries(e.metadata)
                        .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
                        .join(' · ')}
                    </td>
                    <td class="mono">{e.source_ip ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            offset={offset}
            shown={log.data.entries.length}
            total={log.data.total}
            size={PAGE}
            onMove={setOffset}
            labels={['Newer', 'Older']}
          />
        </>
      ) : null}
    </section>
  );
}
