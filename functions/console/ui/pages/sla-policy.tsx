/** @jsxImportSource hono/jsx/dom */
// The SLA policy dialog: its name and position, the hours its minutes count in, the conditions a
// record must match (each optional; all given must match) and the two targets.
import { useState } from 'hono/jsx/dom';
import { api, must } from '../api';
import { FormDialog, useSubmit } from '../components';
import type { Hours, Policy } from './sla-text';

const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
/** A ticket's sources and a conversation's channels: what `channels` may name. */
const CHANNELS = [
  'email',
  'phone',
  'web',
  'chat',
  'api',
  'dashboard',
  'end_user',
  'widget',
  'whatsapp',
] as const;
type Priority = (typeof PRIORITIES)[number];
type Conditions = { priorities?: Priority[]; channels?: (typeof CHANNELS)[number][]; tags?: string[] };

/** An empty box is no target (null); otherwise whole minutes. */
const minutesOf = (text: string): number | null => (text.trim() === '' ? null : Number(text));
const listOf = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

function conditionsOf(priorities: string[], channels: string[], tags: string): Conditions {
  const c: Conditions = {};
  if (priorities.length) c.priorities = priorities as Priority[];
  if (channels.length) c.channels = channels as Conditions['channels'];
  if (listOf(tags).length) c.tags = listOf(tags);
  return c;
}

export function PolicyDialog(props: {
  policy?: Policy;
  hours: Hours[];
  onClose: () => void;
  onSaved: (p: Policy, created: boolean) => void;
}) {
  const { policy } = props;
  const [name, setName] = useState(policy?.name ?? '');
  const [position, setPosition] = useState(policy ? String(policy.position) : '');
  const [hoursId, setHoursId] = useState(policy?.business_hours_id ?? '');
  const [priorities, setPriorities] = useState<string[]>(policy?.conditions.priorities ?? []);
  const [channels, setChannels] = useState<string[]>(policy?.conditions.channels ?? []);
  const [tags, setTags] = useState((policy?.conditions.tags ?? []).join(', '));
  const [first, setFirst] = useState(policy?.first_response_minutes?.toString() ?? '');
  const [resolution, setResolution] = useState(policy?.resolution_minutes?.toString() ?? '');
  const form = useSubmit(async () => {
    const body = {
      name,
      ...(position.trim() === '' ? {} : { position: Number(position) }),
      business_hours_id: hoursId || null,
      conditions: conditionsOf(priorities, channels, tags),
      first_response_minutes: minutesOf(first),
      resolution_minutes: minutesOf(resolution),
    };
    const saved = policy
      ? await must(api.PATCH('/api/v2/sla-policies/{id}', { params: { path: { id: policy.id } }, body }))
      : await must(api.POST('/api/v2/sla-policies', { body }));
    props.onSaved(saved, !policy);
  });
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <FormDialog
      title={policy ? 'Edit SLA policy' : 'New SLA policy'}
      id="sla-policy-form"
      form={form}
      action={policy ? 'Save changes' : 'Create policy'}
      onClose={props.onClose}
      wide
    >
      <label for="policy-name">Name</label>
      <input
        id="policy-name"
        required
        maxLength={200}
        value={name}
        onInput={(e: Event) => setName(value(e))}
      />
      <label for="policy-position">Position (optional; default after the last)</label>
      <input
        id="policy-position"
        type="number"
        min={0}
        max={1000000}
        value={position}
        onInput={(e: Event) => setPosition(value(e))}
      />
      <label for="policy-hours">Counted in</label>
      <select id="policy-hours" onChange={(e: Event) => setHoursId(value(e))}>
        <option value="" selected={hoursId === ''}>
          Around the clock
        </option>
        {props.hours.map((h) => (
          <option key={h.id} value={h.id} selected={h.id === hoursId}>
            {h.name} ({h.timezone})
          </option>
        ))}
      </select>
      <Choices
        legend="Priorities (none ticked: any)"
        all={PRIORITIES}
        picked={priorities}
        onChange={setPriorities}
      />
      <Choices legend="Channels (none ticked: any)" all={CHANNELS} picked={channels} onChange={setChannels} />
      <label for="policy-tags">Tags, comma-separated (empty: any)</label>
      <input id="policy-tags" value={tags} onInput={(e: Event) => setTags(value(e))} />
      <Targets first={first} resolution={resolution} onFirst={setFirst} onResolution={setResolution} />
    </FormDialog>
  );
}

function Targets(props: {
  first: string;
  resolution: string;
  onFirst: (v: string) => void;
  onResolution: (v: string) => void;
}) {
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <fieldset>
      <legend>Targets, in business minutes (empty: none)</legend>
      <label for="policy-first">First response</label>
      <input
        id="policy-first"
        type="number"
        min={0}
        max={525600}
        value={props.first}
        onInput={(e: Event) => props.onFirst(value(e))}
      />
      <label for="policy-resolution">Resolution</label>
      <input
        id="policy-resolution"
        type="number"
        min={0}
        max={525600}
        value={props.resolution}
        onInput={(e: Event) => props.onResolution(value(e))}
      />
    </fieldset>
  );
}

function Choices(props: {
  legend: string;
  all: readonly string[];
  picked: string[];
  onChange: (next: string[]) => void;
}) {
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.all.map((v) => (
        <label key={v} class="check">
          <input
            type="checkbox"
            value={v}
            checked={props.picked.includes(v)}
            onChange={(e: Event) =>
              props.onChange(
                (e.target as HTMLInputElement).checked
                  ? [...props.picked, v]
                  : props.picked.filter((p) => p !== v),
              )
            }
          />
          <span>{v}</span>
        </label>
      ))}
    </fieldset>
  );
}
