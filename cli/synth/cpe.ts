/**
 * CPE names of synthetic products: CPE 2.3 formatted strings (NVD, nuclei) and CPE 2.2 URIs
 * (Red Hat CSAF, NVD `affectedData.cpes`).
 */
import type { Product } from './products.ts';

/** The `target_sw` component: where a package or plugin runs. */
function targetSoftware(p: Product): string {
  if (p.kind === 'plugin') return 'wordpress';
  switch (p.ecosystem) {
    case 'npm': return 'node.js';
    case 'PyPI': return 'python';
    case 'RubyGems': return 'ruby';
    case 'Go': return 'go';
    case 'Maven': return '*';
    default: return '*';
  }
}

/** `cpe:2.3:a:vendor:product:<version>:*:*:*:*:<target_sw>:*:*`. */
export function cpe23(p: Product, version = '*'): string {
  return `cpe:2.3:${p.part}:${p.vendor}:${p.product}:${version}:*:*:*:*:${targetSoftware(p)}:*:*`;
}

/** The hardware a firmware product runs on (`vulnerable: false` in AND configurations). */
export function hardwareCpe23(p: Product): string | null {
  return p.hardware ? `cpe:2.3:h:${p.vendor}:${p.hardware}:-:*:*:*:*:*:*:*` : null;
}

/** `cpe:/a:vendor:product:version`. */
export function cpe22(p: Product, version?: string): string {
  return `cpe:/${p.part}:${p.vendor}:${p.product}${version ? `:${version}` : ''}`;
}
