/**
 * The "kinds of change" checkboxes of a subscription filter, shared by the subscribe form and
 * the manage page's edit form so both offer the same kinds with the same names. A refused
 * `kind` marks the checkboxes and prints its message in the fieldset.
 */
import { CHANGE_KINDS } from '../../../lib/changes/model.ts';
import { kindLabel } from '../format.ts';
import { FieldMessage, invalidAttrs, problemId, type FieldProblem } from './field-error.tsx';

export function KindsFieldset({ checked, problem, prefix = 'k' }: { checked: ReadonlySet<string>; problem?: FieldProblem | undefined; prefix?: string }) {
  const invalid = invalidAttrs(problem, prefix, 'kind');
  return (
    <fieldset class="wide" id={`${prefix}-kinds`} aria-describedby={invalid['aria-describedby'] ? problemId(prefix, 'kind') : undefined}>
      <legend>Kinds of change (none ticked: every kind)</legend>
      {CHANGE_KINDS.map((k, i) => (
        <label>
          <input type="checkbox" name="kind" value={k} checked={checked.has(k)} aria-invalid={invalid['aria-invalid']} autofocus={i === 0 && invalid.autofocus === true} />{' '}
          {kindLabel(k)}
        </label>
      ))}
      <FieldMessage problem={problem} prefix={prefix} field="kind" />
    </fieldset>
  );
}
