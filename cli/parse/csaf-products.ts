/**
 * CSAF product tree: product_id → product name, through recursive `branches`,
 * `full_product_names` and `relationships[].full_product_name` (CSAF 2.0 §3.1.4). Vulnerabilities
 * only name product ids, so every name shown to users comes through here.
 */
import { isObject } from './common.ts';

export type ProductNames = Map<string, string>;

function addProduct(names: ProductNames, product: unknown): void {
  if (!isObject(product)) return;
  const id = product.product_id;
  const name = product.name;
  if (typeof id === 'string' && typeof name === 'string' && !names.has(id)) names.set(id, name);
}

/** Every product the tree declares, in document order (branches, then full names, then relationships). */
export function productNames(tree: unknown): ProductNames {
  const names: ProductNames = new Map();
  if (!isObject(tree)) return names;
  // Iterative walk: vendor trees nest a handful of levels, but a stack costs nothing and
  // cannot overflow on a pathological document.
  const stack: unknown[] = Array.isArray(tree.branches) ? [...tree.branches].reverse() : [];
  while (stack.length > 0) {
    const branch = stack.pop();
    if (!isObject(branch)) continue;
    addProduct(names, branch.product);
    if (Array.isArray(branch.branches)) for (let i = branch.branches.length - 1; i >= 0; i--) stack.push(branch.branches[i]);
  }
  if (Array.isArray(tree.full_product_names)) for (const p of tree.full_product_names) addProduct(names, p);
  if (Array.isArray(tree.relationships)) {
    for (const r of tree.relationships) if (isObject(r)) addProduct(names, r.full_product_name);
  }
  return names;
}

/** `product_status` categories (CSAF 2.0 §3.2.3.9) of a product the CVE affects. */
export const AFFECTED = ['first_affected', 'known_affected', 'last_affected'] as const;
/** Categories of a product that holds the fix: a fixed version, not an affected one. */
export const FIXED = ['first_fixed', 'fixed'] as const;

/** Every `product_status` category of CSAF 2.0 §3.2.3.9. */
export const ANY_STATUS = [...AFFECTED, ...FIXED, 'known_not_affected', 'recommended', 'under_investigation'] as const;

/** Product ids a vulnerability puts in any of `categories`, in document order. */
export function productIdsIn(vulnerability: Record<string, unknown>, categories: readonly string[]): string[] {
  const status = vulnerability.product_status;
  if (!isObject(status)) return [];
  const ids: string[] = [];
  for (const category of categories) {
    const list = status[category];
    if (Array.isArray(list)) for (const id of list) if (typeof id === 'string') ids.push(id);
  }
  return ids;
}
