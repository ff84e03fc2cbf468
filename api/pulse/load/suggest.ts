/**
 * Suggestions for the subscription filter builder (`GET /pulse/suggest?field=…&q=…`): vendors,
 * products (of a vendor, `scope`), ecosystems, packages and CWEs of the snapshot, most common
 * first, at most SUGGEST_MAX. Vendors, ecosystems and CWEs come from the API's catalog queries;
 * products and packages from their side tables by prefix.
 */
import { listCwes, listEcosystems, listVendors } from '../../queries/catalogs.ts';
import { selectRows } from '../../queries/support.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { counted } from '../format.ts';
import { PageError } from '../page-response.ts';
import { productKey } from '../../routes/cves.ts';
import { filterTextProblem } from '../../../lib/changes/model.ts';
import { codePointsExceed } from '../../../lib/code-points.ts';

export const SUGGEST_FIELDS = ['vendor', 'product', 'ecosystem', 'package', 'cwe'] as const;
export type SuggestField = (typeof SUGGEST_FIELDS)[number];
export const SUGGEST_MAX = 10;
/** The longest `q` or `scope`, in characters (code points). */
export const SUGGEST_TEXT_MAX = 100;

export interface Suggestion {
  value: string;
  label: string;
}

export interface SuggestRequest {
  field: SuggestField;
  /** What was typed so far, trimmed; empty for the most common values. */
  q: string;
  /** The vendor of a product, the ecosystem of a package. */
  scope: string | undefined;
}

function refused(parameter: string, problem: string): PageError {
  return new PageError(400, 'Bad suggestion request', `${parameter}: ${problem}`, parameter);
}

/**
 * The request's parameters, each sent at most once; `q` and `scope` are text as typed in a form
 * field: at most SUGGEST_TEXT_MAX characters, no control character, no lone surrogate (the rules of a
 * filter's text, lib/changes/model.ts, but empty allowed). Anything else is a 400 naming it, as
 * on the API, never quietly cut or matched as sent.
 */
export function readSuggestRequest(values: (name: string) => string[]): SuggestRequest {
  const one = (name: string): string | undefined => {
    const sent = values(name);
    if (sent.length > 1) throw refused(name, `sent ${sent.length} times; send it once`);
    return sent[0];
  };
  const text = (name: string): string | undefined => {
    const raw = one(name);
    if (raw === undefined || raw.trim() === '') return raw === undefined ? undefined : '';
    if (codePointsExceed(raw, SUGGEST_TEXT_MAX)) throw refused(name, `longer than ${SUGGEST_TEXT_MAX} characters`);
    const problem = filterTextProblem(raw);
    if (problem !== null) throw refused(name, problem);
    return raw.trim();
  };
  const rawField = one('field');
  const field = SUGGEST_FIELDS.find((f) => f === rawField);
  if (!field) throw refused('field', `expected one of ${SUGGEST_FIELDS.join(', ')}`);
  const scope = text('scope');
  return { field, q: text('q') ?? '', scope: scope === '' ? undefined : scope };
}

/** `%`, `_` and `\` matched as themselves in a LIKE pattern. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function suggest(snapshot: ServingSnapshot, { field, q, scope }: SuggestRequest, max = SUGGEST_MAX): Promise<Suggestion[]> {
  switch (field) {
    case 'vendor': {
      const page = await listVendors(snapshot, q === '' ? undefined : q, { limit: max, offset: 0 });
      return page.vendors.map((v) => ({ value: v.vendor, label: `${v.name} (${counted(v.cve_count, 'CVE')})` }));
    }
    case 'cwe': {
      const page = await listCwes(snapshot, q === '' ? undefined : q, { limit: max, offset: 0 });
      return page.cwes.map((c) => ({ value: c.cwe_id, label: `${c.cwe_id}${c.name ? ` ${c.name}` : ''} (${counted(c.cve_count, 'CVE')})` }));
    }
    case 'ecosystem': {
      const all = await listEcosystems(snapshot);
      return all
        .filter((e) => e.ecosystem.toLowerCase().startsWith(q.toLowerCase()))
        .slice(0, max)
        .map((e) => ({ value: e.ecosystem, label: `${e.ecosystem} (${counted(e.package_count, 'package')})` }));
    }
    case 'product': {
      // A product key of several vendors (or a package of several ecosystems, below) is labelled
      // with the least of them: the same label on every replica and in every build.
      const params: string[] = [likePrefix(productKey(q))];
      const vendor = scope ? productKey(scope) : '';
      if (vendor !== '') params.push(vendor);
      const rows = await selectRows<{ product_key: string; vendor_key: string; n: number }>(
        snapshot,
        `SELECT product_key, min(vendor_key) AS vendor_key, count(DISTINCT cve_id)::INTEGER AS n FROM products
         WHERE product_key LIKE $1 ESCAPE '\\' ${vendor !== '' ? 'AND vendor_key = $2' : ''}
         GROUP BY product_key ORDER BY n DESC, product_key LIMIT ${Math.trunc(max)}`,
        params,
      );
      return rows.map((r) => ({ value: r.product_key, label: `${r.product_key}${vendor === '' ? ` (${r.vendor_key})` : ''}, ${counted(r.n, 'CVE')}` }));
    }
    case 'package': {
      const params: string[] = [likePrefix(q.toLowerCase())];
      if (scope) params.push(scope.toLowerCase());
      const rows = await selectRows<{ package_name: string; ecosystem: string | null; n: number }>(
        snapshot,
        `SELECT package_name, min(ecosystem) AS ecosystem, count(DISTINCT cve_id)::INTEGER AS n FROM affected_packages
         WHERE lower(package_name) LIKE $1 ESCAPE '\\' ${scope ? 'AND lower(ecosystem) = $2' : ''}
         GROUP BY package_name ORDER BY n DESC, package_name LIMIT ${Math.trunc(max)}`,
        params,
      );
      return rows.map((r) => ({ value: r.package_name, label: `${r.package_name}${r.ecosystem ? ` (${r.ecosystem})` : ''}, ${counted(r.n, 'CVE')}` }));
    }
  }
}
