/** A subject's change history: what changed, before → after, and why, newest first. */
import type { ChangeRow } from '../../../lib/changes/model.ts';
import { kindLabel, minute } from '../format.ts';
import { Breakable } from './breakable.tsx';

/** `{"service_risk":41}` → `service_risk 41`; text that is not a JSON object is shown as it is. */
export function fieldsText(json: string | null): string {
  if (json === null || json === '') return '—';
  try {
    const value = JSON.parse(json) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return String(json);
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join(', ');
  } catch {
    return json;
  }
}

export function ChangeHistory({ history, id }: { history: ChangeRow[] | null; id: string }) {
  if (history === null) return <p id={id}>This snapshot carries no change history yet (the first build of a data folder records none).</p>;
  if (history.length === 0) return <p id={id}>No change recorded in the last 90 days.</p>;
  return (
    <div class="table-wrap">
      <table id={id} class="stack">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">Before → after</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {history.map((ch) => (
            <tr data-change-id={ch.change_id}>
              <td class="date">{minute(ch.detected_at)}</td>
              <td data-label="Change">{kindLabel(ch.kind)}</td>
              <td data-label="Before → after">
                <Breakable text={`${fieldsText(ch.before)} → ${fieldsText(ch.after)}`} />
              </td>
              <td data-label="Why">
                <Breakable text={ch.why} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
