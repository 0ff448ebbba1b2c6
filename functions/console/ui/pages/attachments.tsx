/** @jsxImportSource hono/jsx/dom */
// A ticket's files: name, type, size and when, each downloaded by its signed link (no credential;
// it expires, so the list is read again before a link runs out), an upload, and delete.
import { useEffect, useState } from 'hono/jsx/dom';
import { api, type components, must } from '../api';
import {
  Confirm,
  Empty,
  ErrorText,
  LoadError,
  Loading,
  RecordsTable,
  Time,
  useLoad,
  useSubmit,
} from '../components';

type Attachment = components['schemas']['Attachment'];

/** Bytes as people read them: "512 B", "12.3 KB", "4.0 MB" (1024 each). */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let n = bytes / 1024;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return `${n.toFixed(1)} ${units[u]}`;
}

/** Reads the list again a little before its earliest link expires, so a link shown still works. */
export function useFreshLinks(list: Attachment[] | undefined, reload: () => void) {
  useEffect(() => {
    const first = Math.min(...(list ?? []).map((a) => new Date(a.download_url_expires_at).getTime()));
    if (!Number.isFinite(first)) return;
    const timer = setTimeout(reload, Math.max(5_000, first - Date.now() - 30_000));
    return () => clearTimeout(timer);
  }, [list]);
}

export function Attachments(props: { ticketId: string }) {
  const ticket_id = props.ticketId;
  const files = useLoad(
    () => must(api.GET('/api/v1/tickets/{ticket_id}/attachments', { params: { path: { ticket_id } } })),
    [ticket_id],
  );
  const [deleting, setDeleting] = useState<Attachment | null>(null);
  const [notice, setNotice] = useState('');
  const list = files.data?.attachments;
  useFreshLinks(list, files.reload);
  return (
    <>
      <h2 class="section-title">Attachments</h2>
      <p class="notice" role="status">
        {notice}
      </p>
      <LoadError load={files} />
      {files.loading && !list ? <Loading what="attachments" /> : null}
      {list && list.length === 0 ? <Empty>No files on this ticket yet.</Empty> : null}
      {list && list.length > 0 ? <AttachmentsTable list={list} onDelete={setDeleting} /> : null}
      <UploadForm
        ticketId={ticket_id}
        onUploaded={(a) => {
          setNotice(`${a.filename} uploaded (${sizeText(a.size)}).`);
          files.reload();
        }}
      />
      {deleting ? (
        <Confirm
          title="Delete attachment"
          message={`${deleting.filename} is deleted with its bytes; links already handed out stop working.`}
          action="Delete"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            const path = { ticket_id, attachment_id: deleting.id };
            await must(
              api.DELETE('/api/v1/tickets/{ticket_id}/attachments/{attachment_id}', { params: { path } }),
            );
            setNotice(`${deleting.filename} deleted.`);
            files.reload();
          }}
        />
      ) : null}
    </>
  );
}

function AttachmentsTable(props: { list: Attachment[]; onDelete: (a: Attachment) => void }) {
  return (
    <RecordsTable name="attachments" columns={['File', 'Type', 'Size', 'Uploaded']} actions>
      {props.list.map((a) => (
        <tr key={a.id} data-attachment={a.filename}>
          <td data-label="File" class="attachment-name">
            <a href={a.download_url} download={a.filename} rel="noreferrer">
              {a.filename}
            </a>
          </td>
          <td data-label="Type" class="mono small">
            {a.content_type}
          </td>
          <td data-label="Size">{sizeText(a.size)}</td>
          <td data-label="Uploaded">
            <Time iso={a.created_at} />
          </td>
          <td class="row-actions">
            <button
              type="button"
              class="danger-text"
              aria-label={`Delete ${a.filename}`}
              onClick={() => props.onDelete(a)}
            >
              Delete
            </button>
          </td>
        </tr>
      ))}
    </RecordsTable>
  );
}

/** A file picked, then sent as the raw body under its own name and type. */
function UploadForm(props: { ticketId: string; onUploaded: (a: Attachment) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const form = useSubmit(async () => {
    if (!file) throw new Error('Pick a file first.');
    const uploaded = await must(
      api
        .upload(`/api/v1/tickets/${encodeURIComponent(props.ticketId)}/attachments`, file, {
          filename: file.name,
        })
        .then((data) => ({ data })),
    );
    setFile(null);
    const input = document.getElementById('attachment-file') as HTMLInputElement | null;
    if (input) input.value = '';
    props.onUploaded(uploaded);
  });
  return (
    <form class="upload-form" onSubmit={form.submit} onChange={form.clear}>
      <label for="attachment-file">Add a file</label>
      <div class="copy-row">
        <input
          id="attachment-file"
          type="file"
          onChange={(e: Event) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
        <button type="submit" class="primary" disabled={form.busy || !file}>
          {form.busy ? 'Uploading…' : 'Upload'}
        </button>
      </div>
      <ErrorText message={form.error} />
    </form>
  );
}
