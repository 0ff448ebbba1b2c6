/** @jsxImportSource hono/jsx/dom */
// Ticket fields: the tenant's own typed fields, which tickets carry in `custom_fields`. A field's
// key and type are fixed once created (tickets hold values of that type under that key); its
// label, options and whether it is required can change.
import type { Child } from 'hono/jsx';
import { useState } from 'hono/jsx/dom';
import { api, type components, must } from '../api';
import { Badge, FormDialog, ListPage, RecordsTable, useSubmit } from '../components';

type Field = components['schemas']['TicketField'];
type FieldType = Field['type'];

export const FIELD_TYPES: { value: FieldType; label: string }[] = [
  { value: 'text', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'date', label: 'Date' },
  { value: 'checkbox', label: 'Checkbox' },
  { value: 'dropdown', label: 'Dropdown (one option)' },
  { value: 'multiselect', label: 'Multiselect (any options)' },
];
const takesOptions = (t: FieldType) => t === 'dropdown' || t === 'multiselect';
const typeLabel = (t: FieldType) => FIELD_TYPES.find((x) => x.value === t)?.label ?? t;

export function TicketFieldsPage() {
  return (
    <ListPage<Field>
      title="Ticket fields"
      intro={
        <>
          Your own fields on every ticket, in <code>custom_fields</code>, checked against their type.
        </>
      }
      what="ticket fields"
      load={async (page) => {
        const answer = await must(api.GET('/api/v2/ticket-fields', { params: { query: page } }));
        return { items: answer.ticket_fields, total: answer.total };
      }}
      empty="No ticket fields yet."
      table={(list, menu) => <FieldsTable list={list} menu={menu} />}
      editing={{
        action: 'helpdesk.manage',
        newLabel: 'New field',
        noun: 'Field',
        name: (f) => f.label,
        dialog: (field, on) => <FieldDialog field={field} {...on} />,
        remove: {
          title: 'Delete ticket field',
          message: (f) => `${f.label} (${f.key}) is deleted; tickets no longer return its values.`,
          run: async (f) => {
            await must(
              api.DELETE('/api/v2/ticket-fields/{field_id}', { params: { path: { field_id: f.id } } }),
            );
          },
        },
      }}
    />
  );
}

function FieldsTable(props: { list: Field[]; menu?: (f: Field) => Child }) {
  return (
    <RecordsTable name="ticket-fields" columns={['Label', 'Key', 'Type', 'Options']} actions={!!props.menu}>
      {props.list.map((f) => (
        <tr key={f.id} data-field={f.key}>
          <td data-label="Label">
            <strong>{f.label}</strong> {f.required ? <Badge tone="warn">required</Badge> : null}
          </td>
          <td data-label="Key" class="mono">
            {f.key}
          </td>
          <td data-label="Type">{typeLabel(f.type)}</td>
          <td data-label="Options">
            {f.options.length > 0 ? (
              <ul class="chips">
                {f.options.map((o) => (
                  <li key={o}>{o}</li>
                ))}
              </ul>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
          {props.menu?.(f)}
        </tr>
      ))}
    </RecordsTable>
  );
}

/** One option a line: what the dialog's box holds. */
const optionLines = (text: string) =>
  text
    .split('\n')
    .map((o) => o.trim())
    .filter(Boolean);

/** New field (key, label, type, options, required), or Edit (the key and type stay). */
function FieldDialog(props: {
  field: Field | undefined;
  onClose: () => void;
  onSaved: (f: Field, created: boolean) => void;
}) {
  const { field } = props;
  const [key, setKey] = useState(field?.key ?? '');
  const [label, setLabel] = useState(field?.label ?? '');
  const [type, setType] = useState<FieldType>(field?.type ?? 'text');
  const [options, setOptions] = useState((field?.options ?? []).join('\n'));
  const [required, setRequired] = useState(field?.required ?? false);
  const form = useSubmit(async () => {
    const opts = takesOptions(type) ? { options: optionLines(options) } : {};
    const saved = field
      ? await must(
          api.PATCH('/api/v2/ticket-fields/{field_id}', {
            params: { path: { field_id: field.id } },
            body: { label, required, ...opts },
          }),
        )
      : await must(api.POST('/api/v2/ticket-fields', { body: { key, label, type, required, ...opts } }));
    props.onSaved(saved, !field);
  });
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <FormDialog
      title={field ? 'Edit ticket field' : 'New ticket field'}
      id="ticket-field-form"
      form={form}
      action={field ? 'Save changes' : 'Create field'}
      onClose={props.onClose}
    >
      <label for="field-label">Label</label>
      <input
        id="field-label"
        required
        maxLength={200}
        value={label}
        onInput={(e: Event) => setLabel(value(e))}
      />
      <KeyAndType fixed={!!field} keyName={key} type={type} onKey={setKey} onType={setType} />
      {takesOptions(type) ? (
        <>
          <label for="field-options">Options, one a line</label>
          <textarea
            id="field-options"
            rows={4}
            value={options}
            onInput={(e: Event) => setOptions((e.target as HTMLTextAreaElement).value)}
          />
        </>
      ) : null}
      <label class="check">
        <input
          type="checkbox"
          checked={required}
          onChange={(e: Event) => setRequired((e.target as HTMLInputElement).checked)}
        />
        <span>Required: a ticket is created only with a value</span>
      </label>
    </FormDialog>
  );
}

/** The key and the type: chosen at creation, fixed after (tickets hold values under that key, of that type). */
function KeyAndType(props: {
  fixed: boolean;
  keyName: string;
  type: FieldType;
  onKey: (k: string) => void;
  onType: (t: FieldType) => void;
}) {
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <>
      <label for="field-key">Key</label>
      <input
        id="field-key"
        class="mono"
        required
        maxLength={64}
        pattern="[a-z0-9_]{1,64}"
        disabled={props.fixed}
        aria-describedby="field-key-hint"
        value={props.keyName}
        onInput={(e: Event) => props.onKey(value(e))}
      />
      <p class="muted small" id="field-key-hint">
        Lower-case letters, digits and _; the name in <code>custom_fields</code>. Fixed once created.
      </p>
      <label for="field-type">Type</label>
      <select
        id="field-type"
        disabled={props.fixed}
        onChange={(e: Event) => props.onType(value(e) as FieldType)}
      >
        {FIELD_TYPES.map((t) => (
          <option key={t.value} value={t.value} selected={t.value === props.type}>
            {t.label}
          </option>
        ))}
      </select>
    </>
  );
}
