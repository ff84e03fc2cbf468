/**
 * A refused form's field, marked where it is (the subscribe form, the manage page's edit form,
 * the CVE list's filters):
 * its message printed between its label and the input (so the inputs of a row stay aligned),
 * the input with aria-invalid, aria-describedby naming that message, and autofocus — focus moves
 * to it when the page loads, without JavaScript.
 */

export interface FieldProblem {
  /** The form field's name (`email`, `url`, `min_risk`, `kind`…). */
  field: string;
  message: string;
}

/** The id of the message next to `field` (prefix: the form's id prefix, `s` or `m`). */
export function problemId(prefix: string, field: string): string {
  return `${prefix}-${field.replace(/_/g, '-')}-error`;
}

/** The attributes of an input of `field`: invalid and focused when the problem is its. */
export function invalidAttrs(problem: FieldProblem | undefined, prefix: string, field: string): Record<string, string | boolean | undefined> {
  if (!problem || problem.field !== field) return {};
  return { 'aria-invalid': 'true', 'aria-describedby': problemId(prefix, field), autofocus: true };
}

/** The message, printed by the field it names (nothing for another field). */
export function FieldMessage({ problem, prefix, field }: { problem: FieldProblem | undefined; prefix: string; field: string }) {
  if (!problem || problem.field !== field) return null;
  return (
    <p class="field-error" id={problemId(prefix, field)}>
      {problem.message}
    </p>
  );
}
