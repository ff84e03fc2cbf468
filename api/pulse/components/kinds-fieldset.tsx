/**
 * The "kinds of change" checkboxes of a subscription filter, shared by the subscribe form and
 * the manage page's edit form so both offer the same kinds with the same names.
 */
import { CHANGE_KINDS } from '../../../lib/changes/model.ts';
import { kindLabel } from '../format.ts';

export function KindsFieldset({ checked }: { checked: ReadonlySet<string> }) {
  return (
    <fieldset class="wide">
      <legend>Kinds of change (none ticked: every kind)</legend>
      {CHANGE_KINDS.map((k) => (
        <label>
          <input type="checkbox" name="kind" value={k} checked={checked.has(k)} /> {kindLabel(k)}
        </label>
      ))}
    </fieldset>
  );
}
