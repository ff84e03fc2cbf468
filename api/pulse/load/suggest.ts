/**
 * Suggestions for the subscription filter builder (`GET /pulse/suggest?field=…&q=…`): vendors,
 * products (of a vendor, `scope`), ecosystems, packages and CWEs of the snapshot, most common
 * first, at most SUGGEST_MAX. Vendors, ecosystems and CWEs come from the API's catalog queries;
 * products and packages from their side tables by prefix.
 */
import { listCwes, listEcosystems, listVendors } from '../../queries/catalogs.ts';
import { selectRows } from '../../queries/support.ts';
import type { ServingSnapshot } from '../../snapshot/serving.ts';
import { PageError } from '../page-response.ts';
import { productKey } from '../../routes/cves.ts';

export const SUGGEST_FIELDS = ['vendor', 'product', 'ecosystem', 'package', 'cwe'] as const;
export type SuggestField = (typeof SUGGEST_FIELDS)[number];
export const SUGGEST_MAX = 10;
const QUERY_MAX = 100;

export interface Suggestion {
  value: string;
  label: string;
}

export function suggestFieldOf(raw: string | undefined): SuggestField {
  const field = SUGGEST_FIELDS.find((f) => f === raw);
  if (!field) throw new PageError(400, 'Bad suggestion request', `field: expected one of ${SUGGEST_FIELDS.join(', ')}`, 'field');
  return field;
}

/** `%`, `_` and `\` matched as themselves in a LIKE pattern. */
function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function suggest(snapshot: ServingSnapshot, field: SuggestField, rawQ: string, scope: string | undefined, max = SUGGEST_MAX): Promise<Suggestion[]> {
  const q = rawQ.trim().slice(0, QUERY_MAX);
  switch (field) {
    case 'vendor': {
      const page = await listVendors(snapshot, q === '' ? undefined : q, { limit: max, offset: 0 });
      return page.vendors.map((v) => ({ value: v.vendor, label: `${v.name} (${v.cve_count} CVEs)` }));
    }
    case 'cwe': {
      const page = await listCwes(snapshot, q === '' ? undefined : q, { limit: max, offset: 0 });
      return page.cwes.map((c) => ({ value: c.cwe_id, label: `${c.cwe_id}${c.name ? ` ${c.name}` : ''} (${c.cve_count} CVEs)` }));
    }
    case 'ecosystem': {
      const all = await listEcosystems(snapshot);
      return all
        .filter((e) => e.ecosystem.toLowerCase().startsWith(q.toLowerCase()))
        .slice(0, max)
        .map((e) => ({ value: e.ecosystem, label: `${e.ecosystem} (${e.package_count} packages)` }));
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
      return rows.map((r) => ({ value: r.product_key, label: `${r.product_key}${vendor === '' ? ` (${r.vendor_key})` : ''}, ${r.n} CVEs` }));
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
      return rows.map((r) => ({ value: r.package_name, label: `${r.package_name}${r.ecosystem ? ` (${r.ecosystem})` : ''}, ${r.n} CVEs` }));
    }
  }
}
