/**
 * The "How often" select of a subscription, shared by the subscribe form and the manage page's
 * edit form so both offer the same cadences in the same words (api/pulse/format.ts). A refused
 * `cadence` marks the select and prints its message above it.
 */
import { CADENCES, type Cadence } from '../../../lib/pulse/types.ts';
import { CADENCE_LABELS } from '../format.ts';
import { FieldMessage, invalidAttrs, type FieldProblem } from './field-error.tsx';

function isCadence(value: string): value is Cadence {
  return (CADENCES as readonly string[]).includes(value);
}

/**
 * `value`: the cadence as typed or stored; anything else selects realtime, the service's default.
 * `hint`: say under the select that nothing is sent when nothing matched (the subscribe form,
 * whose row aligns its fields' tops; the edit form aligns their bottoms, which a line under one
 * select would push out of line).
 */
export function CadenceField({ value, problem, prefix, hint = false }: { value: string; problem: FieldProblem | undefined; prefix: string; hint?: boolean }) {
  const chosen: Cadence = isCadence(value) ? value : 'realtime';
  const id = `${prefix}-cadence`;
  const hintId = `${id}-hint`;
  const invalid = invalidAttrs(problem, prefix, 'cadence');
  // The hint is read with the select, after the message when there is one.
  const describedBy = [invalid['aria-describedby'], hint ? hintId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div>
      <label for={id}>How often</label>
      <FieldMessage problem={problem} prefix={prefix} field="cadence" />
      <select id={id} name="cadence" {...invalid} aria-describedby={describedBy}>
        {CADENCES.map((c) => (
          <option value={c} selected={c === chosen}>
            {CADENCE_LABELS[c]}
          </option>
        ))}
      </select>
      {hint ? (
        <p class="hint" id={hintId}>
          Nothing is sent when nothing matched.
        </p>
      ) : null}
    </div>
  );
}
