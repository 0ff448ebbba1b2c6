/** @jsxImportSource hono/jsx/dom */
// The business hours dialog: a name, the IANA time zone, the weekly intervals (any number a day;
// an end at or before the start runs into the next day) and the holidays.
import { useState } from 'hono/jsx/dom';
import { api, must } from '../api';
import { FormDialog, useSubmit } from '../components';
import { dayName, type Hours } from './sla-text';

type Interval = Hours['intervals'][number];
type Holiday = Hours['holidays'][number];

/** The browser's own list of IANA zones (offered, not enforced: the API checks the name). */
const ZONES: string[] =
  typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const WEEKDAYS: Interval[] = [1, 2, 3, 4, 5].map((day) => ({ day, start: '09:00', end: '17:00' }));

/** Holidays one a line, "YYYY-MM-DD name"; a line without a name is named by its date. */
const holidayLines = (hs: Holiday[]) => hs.map((h) => `${h.date} ${h.name}`).join('\n');
function parseHolidays(text: string): Holiday[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [date = '', ...name] = l.split(/\s+/);
      return { date, name: name.join(' ') || date };
    });
}

export function HoursDialog(props: {
  hours?: Hours;
  onClose: () => void;
  onSaved: (h: Hours, created: boolean) => void;
}) {
  const { hours } = props;
  const [name, setName] = useState(hours?.name ?? '');
  const [timezone, setTimezone] = useState(hours?.timezone ?? browserZone());
  const [intervals, setIntervals] = useState<Interval[]>(hours?.intervals ?? WEEKDAYS);
  const [holidays, setHolidays] = useState(holidayLines(hours?.holidays ?? []));
  const form = useSubmit(async () => {
    const body = { name, timezone, intervals, holidays: parseHolidays(holidays) };
    const saved = hours
      ? await must(api.PATCH('/api/v2/business-hours/{id}', { params: { path: { id: hours.id } }, body }))
      : await must(api.POST('/api/v2/business-hours', { body }));
    props.onSaved(saved, !hours);
  });
  return (
    <FormDialog
      title={hours ? 'Edit business hours' : 'New business hours'}
      id="business-hours-form"
      form={form}
      action={hours ? 'Save changes' : 'Create business hours'}
      onClose={props.onClose}
      wide
    >
      <label for="hours-name">Name</label>
      <input
        id="hours-name"
        required
        maxLength={200}
        value={name}
        onInput={(e: Event) => setName((e.target as HTMLInputElement).value)}
      />
      <label for="hours-timezone">Time zone</label>
      <input
        id="hours-timezone"
        required
        list="hours-zones"
        aria-describedby="hours-timezone-hint"
        value={timezone}
        onInput={(e: Event) => setTimezone((e.target as HTMLInputElement).value)}
      />
      <datalist id="hours-zones">
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <p class="muted small" id="hours-timezone-hint">
        An IANA name such as Europe/Berlin: daylight-saving changes follow it.
      </p>
      <IntervalRows intervals={intervals} onChange={setIntervals} />
      <label for="hours-holidays">Holidays, one a line: YYYY-MM-DD and a name</label>
      <textarea
        id="hours-holidays"
        rows={3}
        placeholder="2026-12-25 Christmas Day"
        value={holidays}
        onInput={(e: Event) => setHolidays((e.target as HTMLTextAreaElement).value)}
      />
    </FormDialog>
  );
}

function IntervalRows(props: { intervals: Interval[]; onChange: (next: Interval[]) => void }) {
  const { intervals } = props;
  const set = (i: number, patch: Partial<Interval>) =>
    props.onChange(intervals.map((iv, j) => (j === i ? { ...iv, ...patch } : iv)));
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <fieldset>
      <legend>Open</legend>
      <p class="muted small">An end at or before its start runs into the next day; 24:00 ends at midnight.</p>
      {intervals.map((iv, i) => (
        <div key={i} class="interval-row">
          <select
            aria-label={`Interval ${i + 1} day`}
            onChange={(e: Event) => set(i, { day: Number(value(e)) })}
          >
            {[1, 2, 3, 4, 5, 6, 7].map((d) => (
              <option key={d} value={d} selected={d === iv.day}>
                {dayName(d)}
              </option>
            ))}
          </select>
          <input
            aria-label={`Interval ${i + 1} start`}
            class="mono"
            pattern="\d\d:\d\d"
            size={5}
            value={iv.start}
            onInput={(e: Event) => set(i, { start: value(e) })}
          />
          <span aria-hidden="true">–</span>
          <input
            aria-label={`Interval ${i + 1} end`}
            class="mono"
            pattern="\d\d:\d\d"
            size={5}
            value={iv.end}
            onInput={(e: Event) => set(i, { end: value(e) })}
          />
          <button
            type="button"
            class="danger-text"
            aria-label={`Remove interval ${i + 1}`}
            onClick={() => props.onChange(intervals.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => props.onChange([...intervals, { day: 1, start: '09:00', end: '17:00' }])}
      >
        Add interval
      </button>
    </fieldset>
  );
}
