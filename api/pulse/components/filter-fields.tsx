/**
 * A subscription's filter as form fields, shared by the subscribe form (step 1) and the manage
 * page's edit form, so both ask the same questions in the same words and mark a refused field
 * alike: vendor, product, ecosystem, package and CWE (each with suggestions as typed, through
 * /pulse/suggest), words, lowest severity, lowest risk and KEV only. Ids are `<prefix>-<field>`
 * (`s-vendor`, `m-min-risk`): the targets of a refusal's "Go to <field>" link.
 */
import type { CweEntry, EcosystemEntry, VendorEntry } from '../../queries/catalogs.ts';
import { isTrue } from '../../http/params.ts';
import { FieldMessage, invalidAttrs, type FieldProblem } from './field-error.tsx';

export const SEVERITY_OPTIONS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

/** The snapshot's most common values, offered before anything is typed (none: typed ones only). */
export interface FilterSuggestions {
  vendors: VendorEntry[];
  ecosystems: EcosystemEntry[];
  cwes: CweEntry[];
}

const NO_SUGGESTIONS: FilterSuggestions = { vendors: [], ecosystems: [], cwes: [] };

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function FilterFields({
  form,
  problem,
  prefix,
  suggestions = NO_SUGGESTIONS,
}: {
  /** The filter as typed or stored, by field name. */
  form: Record<string, string>;
  problem: FieldProblem | undefined;
  prefix: string;
  suggestions?: FilterSuggestions;
}) {
  const id = (field: string) => `${prefix}-${field.replace(/_/g, '-')}`;
  const bad = (field: string) => invalidAttrs(problem, prefix, field);
  const message = (field: string) => <FieldMessage problem={problem} prefix={prefix} field={field} />;
  /** A text field with suggestions: `options` first, then what /pulse/suggest finds (pulse.js). */
  const suggested = (field: string, label: string, options: { value: string; label: string }[], extra: { placeholder?: string; scope?: string } = {}) => (
    <div>
      <label for={id(field)}>{label}</label>
      {message(field)}
      <input
        id={id(field)}
        type="text"
        name={field}
        value={form[field] ?? ''}
        list={`${id(field)}-list`}
        data-suggest={field}
        data-suggest-scope={extra.scope ? id(extra.scope) : undefined}
        autocomplete="off"
        placeholder={extra.placeholder}
        {...bad(field)}
      />
      <datalist id={`${id(field)}-list`}>
        {options.map((o) => (
          <option value={o.value}>{o.label}</option>
        ))}
      </datalist>
    </div>
  );
  return (
    <>
      {suggested('vendor', 'Vendor (a whole vendor)', suggestions.vendors.map((v) => ({ value: v.vendor, label: `${v.name} (${plural(v.cve_count, 'CVE')})` })), { placeholder: 'e.g. cisco' })}
      {suggested('product', 'Product of that vendor', [], { scope: 'vendor' })}
      {suggested('ecosystem', 'Ecosystem', suggestions.ecosystems.map((e) => ({ value: e.ecosystem, label: `${e.ecosystem} (${plural(e.package_count, 'package')})` })), { placeholder: 'e.g. npm' })}
      {suggested('package', 'Package', [], { scope: 'ecosystem' })}
      {suggested('cwe', 'Weakness (CWE)', suggestions.cwes.map((c) => ({ value: c.cwe_id, label: `${c.cwe_id}${c.name ? ` ${c.name}` : ''}` })), { placeholder: 'e.g. CWE-79' })}
      <div>
        <label for={id('search')}>Words</label>
        {message('search')}
        <input id={id('search')} type="text" name="search" value={form.search ?? ''} placeholder="e.g. remote code execution" {...bad('search')} />
      </div>
      <div>
        <label for={id('min_severity')}>Lowest severity</label>
        {message('min_severity')}
        <select id={id('min_severity')} name="min_severity" {...bad('min_severity')}>
          <option value="">Any</option>
          {SEVERITY_OPTIONS.map((s) => (
            <option value={s} selected={form.min_severity?.toUpperCase() === s}>
              {s.toLowerCase()}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for={id('min_risk')}>Lowest risk (0–100)</label>
        {message('min_risk')}
        <input id={id('min_risk')} type="text" inputmode="decimal" name="min_risk" value={form.min_risk ?? ''} {...bad('min_risk')} />
      </div>
      <div>
        {/* Ticked as the change feed reads kev_only (1, yes, true, any case): a link's kev_only=1
            filtered by it while its box showed unticked, and a Subscribe dropped it. */}
        <label>
          <input id={id('kev_only')} type="checkbox" name="kev_only" value="true" checked={isTrue(form.kev_only)} {...bad('kev_only')} /> Known exploited (KEV) only
        </label>
        {message('kev_only')}
      </div>
    </>
  );
}
