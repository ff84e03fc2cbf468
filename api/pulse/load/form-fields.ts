/**
 * The filter fields of a /pulse page's query (or posted form) as its loaders read them, one rule
 * for every page: each value trimmed, blank ones dropped, the ticked boxes of one multi-valued
 * field joined by commas, any other field sent twice refused naming it (never one of the two
 * taken silently). A refused filter is a 400 page naming the field.
 */
import { PageError } from '../page-response.ts';

/** The 400 of a filter the page cannot take, naming it. */
export function refuseFilter(parameter: string, message: string): never {
  throw new PageError(400, 'A filter is not valid', message, parameter);
}

/** `names` of `sent` (name → values as sent); `joined`: the field whose values are ticked boxes. */
export function formFields(sent: Record<string, string[]>, names: readonly string[], joined?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const values = (sent[name] ?? []).map((v) => v.trim()).filter((v) => v !== '');
    if (values.length === 0) continue;
    if (name === joined) out[name] = values.join(',');
    else if (values.length > 1) refuseFilter(name, `${name}: given more than once`);
    else out[name] = values[0]!;
  }
  return out;
}
