/** A subject's change history: what changed, before → after, and why, newest first. */
import type { ChangeRow } from '../../../lib/changes/model.ts';
import { kindLabel, minute } from '../format.ts';
import { Breakable } from './breakable.tsx';

/** A change's before or after as its fields, or null when it is not a JSON object. */
function fieldsOf(json: string | null): Record<string, unknown> | null {
  if (json === null || json === '') return null;
  try {
    const value = JSON.parse(json) as unknown;
    return value === null || typeof value !== 'object' || Array.isArray(value) ? null : (value as Record<string, unknown>);
  } catch {
    return null;
  }
}

const fieldName = (key: string) => key.replace(/_/g, ' ');
const fieldValue = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** `{"service_risk":41}` → `service risk 41`; text that is not a JSON object is shown as it is. */
function fieldsText(json: string | null): string {
  if (json === null || json === '') return '—';
  const fields = fieldsOf(json);
  if (fields === null) return json;
  return Object.entries(fields)
    .map(([k, v]) => `${fieldName(k)} ${fieldValue(v)}`)
    .join(', ');
}

/**
 * A change's before → after. When both name the same fields, each is named once with its move
 * (`service score 8.9 → 9.4, service severity HIGH → CRITICAL`; a field that did not move is
 * given once); otherwise the two sides whole (`— → service score 7.5` for a new CVE).
 */
export function beforeAfterText(before: string | null, after: string | null): string {
  const old = fieldsOf(before);
  const now = fieldsOf(after);
  const keys = now === null ? [] : Object.keys(now);
  if (old === null || now === null || keys.length === 0 || keys.length !== Object.keys(old).length || !keys.every((k) => Object.hasOwn(old, k))) {
    return `${fieldsText(before)} → ${fieldsText(after)}`;
  }
  return keys
    .map((k) => {
      const [from, to] = [fieldValue(old[k]), fieldValue(now[k])];
      return from === to ? `${fieldName(k)} ${to}` : `${fieldName(k)} ${from} → ${to}`;
    })
    .join(', ');
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
                <Breakable text={beforeAfterText(ch.before, ch.after)} />
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
