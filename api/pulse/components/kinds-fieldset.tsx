/**
 * The "kinds of change" checkboxes of a subscription filter, shared by the subscribe form and
 * the manage page's edit form so both offer the same kinds with the same names. A refused
 * `kind` marks the checkboxes and prints its message in the fieldset.
 */
import { CHANGE_KINDS } from '../../../lib/changes/model.ts';
import { enumValueOf } from '../../http/params.ts';
import { kindLabel } from '../format.ts';
import { FieldMessage, invalidAttrs, problemId, type FieldProblem } from './field-error.tsx';

/**
 * The kinds a filter's `kind` (comma-separated, as sent or stored) ticks, read as the change
 * feed reads them (any case): a link's `kind=KEV_ADDED` filtered by it, and its box showed
 * unticked (a Subscribe then dropped it).
 */
export function kindsTicked(raw: string | undefined): Set<string> {
  return new Set((raw ?? '').split(',').flatMap((k) => enumValueOf(CHANGE_KINDS, k) ?? []));
}

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
